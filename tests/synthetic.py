"""Synthetic metrics tables and traces with a designed exploration order.

A test fixture (it was ``boexplore.analysis.synthetic``; no user code imported it): each
method gets an exploration *level*; normalised OTSD and OE grow with it, so the true order
is known. Performance is an inverted U in the level (best at 0.5), so the non-monotone
relation of P1-C8 is built in. Variants (q, trust region, RAASP) shift the level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

DEFAULT_LEVELS: dict[str, float] = {
    "random": 1.0,
    "ucb_high": 0.85,
    "mes": 0.7,
    "kg": 0.68,
    "logei": 0.55,
    "pi": 0.4,
    "ucb_low": 0.3,
    "greedy": 0.1,
}


def synthetic_metrics(
    problems: Sequence[tuple[str, int]] = (("p_low", 2), ("p_mid", 5), ("p_high", 60)),
    levels: Mapping[str, float] | None = None,
    seeds: int = 5,
    T: int = 15,
    noise: float = 0.01,
    variants: Mapping[str, tuple[str, int, bool, bool, float]] | None = None,
    seed: int = 0,
    overrides: Mapping[tuple[str, str], float] | None = None,
    perf_peak: float = 0.5,
) -> pd.DataFrame:
    """Long metrics table shaped like ``results/<run>/tables/metrics.parquet``.

    ``variants`` maps a label to (base label, q, trust_region, raasp, level shift).
    ``overrides`` sets the level of one (problem, method) cell (e.g. TS above
    random only in high d). Performance peaks at level ``perf_peak`` (0.5: an
    inverted U; > 1.2: monotone increasing in exploration).
    """
    rng = np.random.default_rng(seed)
    levels = dict(levels or DEFAULT_LEVELS)
    meta = {m: (m, m, 1, False, False, lv) for m, lv in levels.items()}
    for label, (base, q, tr, ra, shift) in (variants or {}).items():
        mods = (f"+q{q}" if q > 1 else "") + ("+tr" if tr else "") + ("+raasp" if ra else "")
        meta[label] = (f"{base}{mods}", base, q, tr, ra, levels[base] + shift)
    rows = []
    n = np.arange(1, T + 1)
    for problem, d in problems:
        for method, (spec, base, q, tr, ra, lv0) in meta.items():
            lv = (overrides or {}).get((problem, method), lv0)
            for s in range(seeds):
                eps = rng.normal(0.0, noise, size=T)
                growth = 1.0 - np.exp(-n / 4.0)
                otsd_norm = 0.1 * lv * growth + np.abs(eps) * 0.1
                psi = 2 * np.sqrt(5 * d) * (1.5 * n) ** (1 - 1 / d)
                oe = 3.0 * (lv - 1.0) + rng.normal(0.0, noise * 3, size=T)
                best = -((lv - perf_peak) ** 2) - 0.2 * np.exp(-n / 5) + rng.normal(0, noise, T)
                best = np.maximum.accumulate(best)
                rows.append(
                    pd.DataFrame(
                        {
                            "problem": problem,
                            "problem_name": problem.split("_")[0],
                            "dim": d,
                            "method": method,
                            "method_spec": spec,
                            "base_method": base,
                            "q": q,
                            "trust_region": tr,
                            "raasp": ra,
                            "seed": s,
                            "n": n,
                            "iteration": (n - 1) // q,
                            "otsd": otsd_norm * psi,
                            "otsd_norm": otsd_norm,
                            "psi": psi,
                            "otsd_lb": 0.5 * otsd_norm * psi,
                            "oe_kl": oe,
                            "oe_ref": oe - 0.1,
                            "best_so_far": best,
                            "regret": -best,
                        }
                    )
                )
    return pd.concat(rows, ignore_index=True)


def zero_oe_estimator(X: np.ndarray) -> np.ndarray:
    """Stand-in uniform-OE estimator returning zeros (so oe_rel == oe_kl)."""
    return np.zeros(X.shape[0])


def synthetic_trace(
    d: int, T: int, kind: str = "random", seed: int = 0, problem: str = "p", method: str = "m"
) -> pd.DataFrame:
    """A trace with ``x_0..x_{d-1}``: uniform points or a cluster drifting across the cube."""
    rng = np.random.default_rng(seed)
    if kind == "random":
        X = rng.random((T, d))
    elif kind == "cluster":
        centre = np.linspace(0.2, 0.8, T)[:, None] * np.ones((1, d))
        X = np.clip(centre + rng.normal(0, 0.03, (T, d)), 0, 1)
    else:
        raise ValueError(f"unknown trace kind {kind!r}; use 'random' or 'cluster'")
    df = pd.DataFrame(X, columns=[f"x_{i}" for i in range(d)])
    df.insert(0, "eval_index", np.arange(T))
    df.insert(0, "seed", seed)
    df.insert(0, "method", method)
    df.insert(0, "dim", d)
    df.insert(0, "problem", problem)
    return df
