"""The finite-domain BO loop for paper 2, batched over seeds.

All seeds of one (problem, policy) run advance together, round by round: the
B networks of a round are trained in one batched Adam loop. Every random draw
is made from per-seed streams (noise, initial design, tie-breaks: numpy
``default_rng([seed, stream])``; network initialisations: ``init_params(...,
stream=round)``), so a seed's trace does not depend on which other seeds share
its batch. Noise and initial design streams do not depend on the method
(common random numbers across methods).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
import torch
from scipy.stats import spearmanr

from boexplore.parametric.exact import ExactSolution, exact_minimiser
from boexplore.parametric.kernels import DomainKernel, log_det_gain, posterior, sample_posterior
from boexplore.parametric.lfbo import lfbo_weights
from boexplore.parametric.mlp import DTYPE, MLPSpec, embed_params, forward, from_numpy, init_params
from boexplore.parametric.policies import PolicySpec
from boexplore.parametric.train import RoundObjective, train

TRAIN_DTYPE = torch.float32


@dataclass(frozen=True)
class BoundCheck:
    """Settings of the E2 bound check (Corollary 4.2 as reconstructed)."""

    delta: float = 0.1


def _argmax_random_ties(values: np.ndarray, rng: np.random.Generator, tol: float = 1e-12) -> int:
    best = values.max()
    ties = np.flatnonzero(values >= best - tol)
    return int(ties[0] if len(ties) == 1 else rng.choice(ties))


def _teacher_params(problem, mlp: MLPSpec) -> list[np.ndarray] | None:
    """Teacher parameters embedded in the policy architecture, or None (not realizable there)."""
    if not hasattr(problem, "teacher_params") or mlp.activation != "tanh":
        return None
    params = problem.teacher_params()
    if len(params) // 2 - 1 != mlp.depth:
        return None
    return embed_params(params, mlp.width)


def _bound_row(err: np.ndarray, sigma: np.ndarray, beta: float) -> dict[str, float]:
    ratio = err / np.maximum(beta * sigma, 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        emp = float(np.max(err / np.maximum(sigma, 1e-300)))
    rho = spearmanr(err, sigma).statistic if np.ptp(err) > 0 and np.ptp(sigma) > 0 else np.nan
    return {
        "coverage": float(np.mean(ratio <= 1.0)),
        "ratio_median": float(np.median(ratio)),
        "ratio_q95": float(np.quantile(ratio, 0.95)),
        "ratio_max": float(ratio.max()),
        "empirical_beta": emp,
        "spearman_err_sigma": float(rho),
    }


def _control_row(
    f_star: np.ndarray, band: np.ndarray, fits: dict[str, np.ndarray | None]
) -> dict[str, float]:
    """Coverage of the band beta_t sigma_t(x) for the trained fit and for controls.

    A band wider than the range of f covers *any* function with values inside that
    range (g = 0, an untrained network), so coverage only means something at the
    "informative" x where beta_t sigma_t(x) < max f - min f. Per fit we record the
    coverage over all x, the number of informative x and how many of them are covered.
    """
    informative = band < np.ptp(f_star)
    out: dict[str, float] = {
        "band_median": float(np.median(band)),
        "n_points": float(len(band)),
        "n_informative": float(informative.sum()),
    }
    for name, g in fits.items():
        if g is None:
            for key in ("coverage", "covered_informative"):
                out[f"{key}_{name}"] = np.nan
            continue
        covered = np.abs(g - f_star) <= band
        out[f"coverage_{name}"] = float(covered.mean())
        out[f"covered_informative_{name}"] = float((covered & informative).sum())
    return out


def _exact_solutions(
    policy: PolicySpec,
    K: np.ndarray,
    idx: np.ndarray,
    g0: np.ndarray,
    targets: dict[str, np.ndarray],
) -> list[ExactSolution] | None:
    """Exact function-space minimiser of each model's round objective, where it exists.

    Defined for the ``func`` regulariser (squared or LFBO loss) and the unregularised
    squared loss (value only, see :mod:`.exact`); None otherwise (anchored L2,
    unregularised LFBO).
    """
    lam = policy.lam if policy.reg == "func" else 0.0
    if policy.reg == "anchor" and policy.lam > 0:
        return None
    if lam == 0 and policy.loss != "squared":
        return None
    return [
        exact_minimiser(K, idx[b], g0[b], lam, policy.loss, **{k: v[b] for k, v in targets.items()})
        for b in range(len(idx))
    ]


def _exact_stats(
    sols: list[ExactSolution] | None, L_fit: np.ndarray, G: np.ndarray
) -> dict[str, np.ndarray]:
    """Per model: gap L_t(theta_t) - min_g L_t(g), argmax agreement and RMS distance to g*."""
    B = len(G)
    out = {k: np.full(B, np.nan) for k in ("exact_gap", "argmax_agree", "exact_rms")}
    for b, sol in enumerate(sols or []):
        out["exact_gap"][b] = L_fit[b] - sol.value
        if sol.G is not None:
            out["argmax_agree"][b] = float(np.argmax(G[b]) == np.argmax(sol.G))
            out["exact_rms"][b] = float(np.sqrt(np.mean((G[b] - sol.G) ** 2)))
    return out


def run_policy(
    problem,
    policy: PolicySpec,
    seeds: list[int],
    rounds: int,
    n_init: int = 5,
    noise_std: float = 0.1,
    method: str = "",
    bound_check: BoundCheck | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Run ``policy`` for ``rounds`` evaluations (first ``n_init`` uniform) on every seed.

    Returns the trace (one row per seed and evaluation) and, if ``bound_check``
    is given and the policy is an NN with squared loss, a per-(seed, round)
    table of the E2 confidence-bound statistics.
    """
    if not hasattr(problem, "points"):
        raise ValueError(f"run_policy: problem {problem.name!r} is not a finite-domain problem")
    if rounds < 1 or n_init < 1 or n_init > rounds or noise_std < 0 or not seeds:
        raise ValueError(
            f"run_policy: invalid rounds={rounds}, n_init={n_init}, noise_std={noise_std}, seeds={seeds}"
        )
    torch.set_num_threads(1)
    points, f_star = problem.points, problem.values
    N, B = len(points), len(seeds)
    opt = float(f_star.max())
    noise_rng = [np.random.default_rng([s, 11]) for s in seeds]
    init_rng = [np.random.default_rng([s, 12]) for s in seeds]
    pol_rng = [np.random.default_rng([s, 13]) for s in seeds]
    kern = DomainKernel.build(points, policy.kernel_lengthscale, jitter=policy.kernel_jitter)
    X_dom = torch.as_tensor(points, dtype=DTYPE)
    K_inv_t = torch.as_tensor(kern.K_inv, dtype=DTYPE)
    mlp = MLPSpec(points.shape[1], policy.width, policy.depth, policy.activation, policy.init_scale)
    teacher = (
        _teacher_params(problem, mlp) if policy.kind == "nn" and policy.loss == "squared" else None
    )
    theta_star = from_numpy(teacher, B) if teacher is not None else None
    G_star = torch.as_tensor(f_star, dtype=DTYPE).expand(B, N)

    idx = np.zeros((B, 0), dtype=np.int64)
    ys = np.zeros((B, 0))
    theta0 = prev = None
    rows: list[dict] = []
    bound_rows: list[dict] = []
    for t in range(rounds):
        fit_start = time.perf_counter()
        extra: dict[str, np.ndarray] = {}
        if t < n_init:
            chosen = np.array([r.integers(N) for r in init_rng])
        elif policy.kind == "random":
            chosen = np.array([r.integers(N) for r in pol_rng])
        elif policy.kind in ("gp_ts", "gp_ucb", "gp_greedy"):
            chosen = np.empty(B, dtype=np.int64)
            for b in range(B):
                if policy.kind == "gp_ts":
                    score = sample_posterior(kern.K, idx[b], ys[b], policy.gp_noise, pol_rng[b])[0]
                elif policy.kind == "gp_greedy":  # posterior mean only: no exploration bonus
                    score = posterior(kern.K, idx[b], ys[b], policy.gp_noise)[0]
                else:
                    mean, var = posterior(kern.K, idx[b], ys[b], policy.gp_noise)
                    beta = 2 * np.log(N * (t + 1) ** 2 * np.pi**2 / (6 * policy.ucb_delta))
                    score = mean + np.sqrt(beta * var)
                chosen[b] = _argmax_random_ties(score, pol_rng[b])
        else:
            if theta0 is None or policy.redraw:
                theta0 = init_params(mlp, seeds, stream=t)
            start = prev if (policy.warm_start and prev is not None) else theta0
            with torch.no_grad():
                G0 = forward(theta0, X_dom, mlp.activation)
            y_fit = ys
            if policy.target_perturb and policy.lam > 0:
                y_fit = ys + np.sqrt(policy.lam) * np.stack(
                    [r.standard_normal(ys.shape[1]) for r in pol_rng]
                )
            targets: dict[str, np.ndarray] = {}
            if policy.loss == "lfbo":
                w = [
                    lfbo_weights(ys[b], policy.gamma, policy.utility, policy.balance)
                    for b in range(B)
                ]
                targets["pos_w"] = np.stack([a for a, _ in w])
                targets["neg_w"] = np.stack([c for _, c in w])
            else:
                targets["y"] = y_fit

            def objective(
                dtype: torch.dtype, targets=targets, theta0=theta0, G0=G0, idx=idx
            ) -> RoundObjective:
                return RoundObjective(
                    idx=torch.as_tensor(idx),
                    loss=policy.loss,
                    reg=policy.reg,
                    lam=policy.lam,
                    K_inv=K_inv_t.to(dtype),
                    G0=G0.to(dtype),
                    theta0=[p.to(dtype) for p in theta0],
                    anchor_scale=policy.init_scale,
                    **{k: torch.as_tensor(v, dtype=dtype) for k, v in targets.items()},
                )

            # Adam trains in float32 (fast), L-BFGS in float64 (K^{-1} is ill-conditioned);
            # objective, certificate and convergence gap are evaluated in float64.
            tdt = DTYPE if policy.optimizer == "lbfgs" else TRAIN_DTYPE
            sols = _exact_solutions(policy, kern.K, idx, G0.numpy(), targets)
            theta, _ = train(
                [p.to(tdt) for p in start],
                partial(forward, X=X_dom.to(tdt), activation=mlp.activation),
                objective(tdt),
                policy.steps,
                policy.lr,
                optimizer=policy.optimizer,
            )
            theta = [p.to(DTYPE) for p in theta]
            prev = theta
            with torch.no_grad():
                obj = objective(DTYPE)
                G_t = forward(theta, X_dom, mlp.activation)
                L_fit = obj.value(G_t, theta)
                G = G_t.numpy()
                extra["g_max"] = G.max(1)
                extra["train_loss"] = L_fit.numpy()
                cert = np.full(B, np.nan)
                if policy.loss == "squared" and (
                    policy.reg != "anchor" or theta_star is not None or policy.lam == 0
                ):
                    L_star = obj.value(G_star, theta_star).numpy()
                    cert = L_fit.numpy() - L_star
                extra["certificate"] = cert
            extra.update(_exact_stats(sols, L_fit.numpy(), G))
            chosen = np.array([_argmax_random_ties(G[b], pol_rng[b]) for b in range(B)])
            if bound_check is not None and policy.loss == "squared" and policy.lam > 0:
                g0 = G0.numpy()
                B_t = np.sqrt(kern.rkhs_norm_sq(f_star[None, :] - g0))
                for b in range(B):
                    _, var = posterior(kern.K, idx[b], ys[b], policy.lam)
                    sigma = np.sqrt(var)
                    gain = log_det_gain(kern.K, idx[b], 1.0 / policy.lam)
                    beta = 2 * B_t[b] + 2 * noise_std / np.sqrt(policy.lam) * np.sqrt(
                        gain + 2 * np.log(1 / bound_check.delta)
                    )
                    err = np.abs(G[b] - f_star)
                    fits = {
                        "trained": G[b],
                        "untrained": g0[b],
                        "zero": np.zeros(N),
                        "exact": sols[b].G if sols and sols[b].G is not None else None,
                    }
                    bound_rows.append(
                        {
                            "seed": seeds[b],
                            "round": t,
                            "n_data": idx.shape[1],
                            "B_t": float(B_t[b]),
                            "beta_t": float(beta),
                            "certificate": float(cert[b]),
                            "certified": bool(cert[b] <= 0),
                            "exact_gap": float(extra["exact_gap"][b]),
                            **_bound_row(err, sigma, beta),
                            **_control_row(f_star, beta * sigma, fits),
                        }
                    )
        fit_seconds = time.perf_counter() - fit_start
        f_chosen = f_star[chosen]
        y_new = f_chosen + noise_std * np.array([r.standard_normal() for r in noise_rng])
        idx = np.concatenate([idx, chosen[:, None]], axis=1)
        ys = np.concatenate([ys, y_new[:, None]], axis=1)
        for b in range(B):
            row = {
                "seed": seeds[b],
                "eval_index": t,
                "iteration": 0 if t < n_init else t - n_init + 1,
                "is_initial": t < n_init,
                "index": int(chosen[b]),
                "y": float(y_new[b]),
                "f": float(f_chosen[b]),
                "fit_seconds": fit_seconds / B,
            }
            for key, val in extra.items():
                row[key] = float(val[b])
            rows.append(row)
    trace = pd.DataFrame(rows)
    for key in ("g_max", "train_loss", "certificate", "exact_gap", "argmax_agree", "exact_rms"):
        if key not in trace:
            trace[key] = np.nan
    trace.insert(0, "problem", problem.name)
    trace.insert(1, "dim", problem.dim)
    trace.insert(2, "method", method or policy.kind)
    for j in range(problem.dim):
        trace[f"x_{j}"] = points[trace["index"].to_numpy(), j]
    trace = trace.sort_values(["seed", "eval_index"], kind="stable").reset_index(drop=True)
    g = trace.groupby("seed")
    trace["inst_regret"] = opt - trace["f"]
    trace["cum_regret"] = g["inst_regret"].cumsum()
    trace["best_so_far"] = g["y"].cummax()
    trace["regret"] = opt - g["f"].cummax()
    trace["at_optimum"] = trace["index"] == problem.optimum_index
    trace["optimistic"] = trace["g_max"] >= opt
    bounds = pd.DataFrame(bound_rows) if bound_check is not None else None
    if bounds is not None and len(bounds):
        bounds.insert(0, "problem", problem.name)
        bounds.insert(1, "method", method or policy.kind)
    return trace, bounds
