"""Fixed-hyperparameter GP quantities on a finite domain (numpy, float64).

Paper 2's confidence widths are GP posterior standard deviations of a
*dominating* kernel (here Matern-5/2) at a fixed regulariser lambda, so we
compute them ourselves from Cholesky factors instead of fitting a GP.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular

from boexplore.problems.finite import matern52

__all__ = ["DomainKernel", "matern52", "posterior", "sample_posterior", "log_det_gain"]


@dataclass
class DomainKernel:
    """Matern-5/2 Gram matrix K on the domain, with its inverse (jittered) for RKHS norms."""

    K: np.ndarray
    K_inv: np.ndarray
    lengthscale: float
    jitter: float

    @classmethod
    def build(
        cls, points: np.ndarray, lengthscale: float, outputscale: float = 1.0, jitter: float = 1e-6
    ) -> DomainKernel:
        if lengthscale <= 0 or outputscale <= 0 or jitter < 0:
            raise ValueError(
                f"DomainKernel: need lengthscale, outputscale > 0 and jitter >= 0 (got {lengthscale}, {outputscale}, {jitter})"
            )
        K = matern52(points, points, lengthscale, outputscale) + jitter * outputscale * np.eye(
            len(points)
        )
        L = np.linalg.cholesky(K)
        K_inv = cho_solve((L, True), np.eye(len(K)))
        return cls(K=K, K_inv=0.5 * (K_inv + K_inv.T), lengthscale=lengthscale, jitter=jitter)

    def rkhs_norm_sq(self, f: np.ndarray) -> np.ndarray:
        """f^T K^{-1} f for f (N,) or rows of f (B, N): the H_k norm of a function on the domain."""
        f = np.atleast_2d(f)
        return np.einsum("bi,ij,bj->b", f, self.K_inv, f)


def posterior(
    K: np.ndarray, idx: np.ndarray, y: np.ndarray, noise: float
) -> tuple[np.ndarray, np.ndarray]:
    """GP posterior mean and variance on the whole domain from observations at domain indices.

    ``sigma^2(x) = k(x,x) - k_t(x)^T (K_t + noise I)^{-1} k_t(x)`` (zero prior mean).
    """
    if noise <= 0:
        raise ValueError(f"posterior: noise must be > 0, got {noise}")
    if len(idx) == 0:
        return np.zeros(len(K)), np.diag(K).copy()
    Kt = K[np.ix_(idx, idx)] + noise * np.eye(len(idx))
    L = np.linalg.cholesky(Kt)
    kx = K[:, idx]  # (N, t)
    V = solve_triangular(L, kx.T, lower=True)  # (t, N)
    mean = V.T @ solve_triangular(L, y, lower=True)
    var = np.maximum(np.diag(K) - (V * V).sum(0), 0.0)
    return mean, var


def sample_posterior(
    K: np.ndarray,
    idx: np.ndarray,
    y: np.ndarray,
    noise: float,
    rng: np.random.Generator,
    n_samples: int = 1,
) -> np.ndarray:
    """Joint posterior samples (n_samples, N) of the function on the whole domain."""
    N = len(K)
    if len(idx) == 0:
        mean, cov = np.zeros(N), K
    else:
        Kt = K[np.ix_(idx, idx)] + noise * np.eye(len(idx))
        L = np.linalg.cholesky(Kt)
        V = solve_triangular(L, K[idx, :], lower=True)
        mean = V.T @ solve_triangular(L, y, lower=True)
        cov = K - V.T @ V
    cov = 0.5 * (cov + cov.T)
    evals, evecs = np.linalg.eigh(cov)
    root = evecs * np.sqrt(np.clip(evals, 0.0, None))
    return mean + rng.standard_normal((n_samples, N)) @ root.T


def log_det_gain(K: np.ndarray, idx: np.ndarray, scale: float) -> float:
    """log det(I + scale * K_t) for the Gram matrix K_t of the observed indices."""
    if len(idx) == 0:
        return 0.0
    sign, val = np.linalg.slogdet(np.eye(len(idx)) + scale * K[np.ix_(idx, idx)])
    return float(val)
