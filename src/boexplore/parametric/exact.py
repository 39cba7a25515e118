"""Exact minimiser of the round objective over *all* functions on a finite domain.

With the function-space regulariser R = 1/2 (g - g0)^T K^{-1} (g - g0) the round
objective L_t(g) = sum_i loss(g(x_i); y_i) + lambda R(g) is strictly convex in the
vector g in R^N, and by the representer theorem its minimiser is
g* = g0 + K S^T a with S the (t, N) selection matrix of the observed indices.

* squared loss: a = (S K S^T + lambda I)^{-1} (y - g0(X)) (closed form);
* LFBO loss (convex, smooth): damped Newton in u = S g, the same algebra as the
  Laplace approximation of GP classification; converges to machine precision.

A network's training loss is >= the value at g*, so the *gap* L_t(theta_t) - L_t(g*)
is a certificate of how well the network was trained (0 = exact minimiser).
Without a regulariser (lambda = 0) and squared loss the minimum value is the
within-index sum of squares (any interpolant of the per-index means); the
minimiser is then not unique and only the value is returned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit


@dataclass
class ExactSolution:
    """Minimiser values on the domain (None if not unique) and the minimum objective value."""

    G: np.ndarray | None
    value: float


def _loss_derivs(
    u: np.ndarray,
    loss: str,
    y: np.ndarray | None,
    pos_w: np.ndarray | None,
    neg_w: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-observation loss, first and second derivative in the model output u."""
    if loss == "squared":
        r = u - y
        return 0.5 * r**2, r, np.ones_like(u)
    p = expit(u)
    val = pos_w * np.logaddexp(0.0, -u) + neg_w * np.logaddexp(0.0, u)
    d1 = -pos_w * (1 - p) + neg_w * p
    d2 = (pos_w + neg_w) * p * (1 - p)
    return val, d1, d2


def exact_minimiser(
    K: np.ndarray,
    idx: np.ndarray,
    g0: np.ndarray,
    lam: float,
    loss: str = "squared",
    y: np.ndarray | None = None,
    pos_w: np.ndarray | None = None,
    neg_w: np.ndarray | None = None,
    tol: float = 1e-12,
    max_iter: int = 100,
) -> ExactSolution:
    """Minimiser over g in R^N of sum_i loss(g[idx_i]) + lam/2 (g - g0)^T K^{-1} (g - g0).

    ``K`` must be the (jittered) Gram matrix whose inverse the regulariser uses.
    For ``lam == 0`` only the squared loss is supported (value only, G = None).
    """
    idx = np.asarray(idx, dtype=np.int64)
    if loss not in ("squared", "lfbo"):
        raise ValueError(f"exact_minimiser: unknown loss {loss!r}")
    if lam < 0:
        raise ValueError(f"exact_minimiser: lambda must be >= 0, got {lam}")
    if lam == 0:
        if loss != "squared":
            raise ValueError("exact_minimiser: lambda = 0 is supported for the squared loss only")
        value = 0.0
        for i in np.unique(idx):
            yi = y[idx == i]
            value += 0.5 * float(((yi - yi.mean()) ** 2).sum())
        return ExactSolution(None, value)
    if len(idx) == 0:
        return ExactSolution(g0.copy(), 0.0)
    Kt = K[np.ix_(idx, idx)]
    u0 = g0[idx]
    n = len(idx)
    if loss == "squared":
        a = np.linalg.solve(Kt + lam * np.eye(n), y - u0)
    else:
        # Newton on v = u - u0 with v = Kt z (z = -loss'(u)/lam at the optimum).
        z = np.zeros(n)

        def total(z_: np.ndarray) -> float:
            v_ = Kt @ z_
            return float(
                _loss_derivs(u0 + v_, loss, y, pos_w, neg_w)[0].sum() + 0.5 * lam * z_ @ v_
            )

        f_old = total(z)
        for _ in range(max_iter):
            v = Kt @ z
            _, d1, d2 = _loss_derivs(u0 + v, loss, y, pos_w, neg_w)
            b = d2 * v - d1
            z_new = np.linalg.solve(d2[:, None] * Kt + lam * np.eye(n), b)
            step = z_new - z
            t = 1.0
            f_new = total(z + step)
            while f_new > f_old + 1e-14 * abs(f_old) and t > 1e-8:
                t *= 0.5
                f_new = total(z + t * step)
            z = z + t * step
            converged = abs(f_old - f_new) <= tol * max(1.0, abs(f_old))
            f_old = f_new
            if converged:
                break
        a = z
    G = g0 + K[:, idx] @ a
    u = G[idx]
    data = float(_loss_derivs(u, loss, y, pos_w, neg_w)[0].sum())
    reg = 0.5 * lam * float(a @ Kt @ a)
    return ExactSolution(G, data + reg)
