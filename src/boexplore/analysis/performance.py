"""Exploration–performance link (P1-C8): is the relation non-monotone?

Stated rule. Per problem, rank methods by exploration (1 = least) and by
performance (1 = worst; −final simple regret, or the final best value when the
optimum is unknown), using medians over seeds. Fit performance rank as a
quadratic in exploration rank; a negative quadratic coefficient means the best
methods sit at intermediate exploration (inverted U). Across problems, a
one-sided sign test asks whether negative curvature is more common than 1/2.
Reported alongside: the rate at which the best method's exploration rank is
strictly inside the range (chance level (k−2)/k with k methods).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
from scipy import stats

from boexplore.analysis.claimkit.stats import binomial_ci, binomial_greater_pvalue
from boexplore.analysis.summaries import check_columns


def per_problem_shape(
    cells: pd.DataFrame, exploration: str = "otsd_norm", performance: str = "performance"
) -> pd.DataFrame:
    """Curvature and interior-best flag per problem (needs ≥ 3 methods)."""
    check_columns(cells, ("problem", "method", exploration, performance), "cell table")
    rows = []
    for problem, g in cells.groupby("problem", sort=True):
        g = g[np.isfinite(g[exploration]) & np.isfinite(g[performance])]
        k = len(g)
        if k < 3:
            continue
        er = g[exploration].rank(method="average").to_numpy(float)
        pr = g[performance].rank(method="average").to_numpy(float)
        z = (er - er.mean()) / max(er.std(), 1e-12)
        coef = np.polyfit(z, pr, 2)
        best = pr == pr.max()
        best_er = er[best]
        interior = bool(np.all((best_er > er.min()) & (best_er < er.max())))
        rows.append(
            {
                "problem": problem,
                "dim": int(g["dim"].iloc[0]),
                "n_methods": k,
                "curvature": float(coef[0]),
                "slope": float(coef[1]),
                "best_method": ",".join(sorted(g.loc[best, "method"])),
                "best_exploration_rank": float(best_er.mean()),
                "best_interior": interior,
                "interior_chance": (k - 2) / k,
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "problem",
            "dim",
            "n_methods",
            "curvature",
            "slope",
            "best_method",
            "best_exploration_rank",
            "best_interior",
            "interior_chance",
        ],
    )


def nonmonotone_test(shape: pd.DataFrame) -> dict[str, float]:
    """Sign test on negative curvature and the interior-best rate with its chance level."""
    n = len(shape)
    k_neg = int((shape["curvature"] < 0).sum()) if n else 0
    frac, lo, hi = binomial_ci(k_neg, n)
    k_in = int(shape["best_interior"].sum()) if n else 0
    chance = float(shape["interior_chance"].mean()) if n else np.nan
    return {
        "frac_negative_curvature": frac,
        "ci_low": lo,
        "ci_high": hi,
        "n_problems": n,
        "p_sign": binomial_greater_pvalue(k_neg, n, 0.5),
        "interior_rate": k_in / n if n else np.nan,
        "interior_chance": chance,
        "p_interior": binomial_greater_pvalue(k_in, n, chance) if n else np.nan,
    }


def _quad_fits(er: np.ndarray, pr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise quadratic fits of performance rank on standardised exploration rank.

    ``er``, ``pr`` are (fits, methods). Returns (curvature, vertex in standardised
    units, concave-with-vertex-strictly-inside-the-range); vertex NaN when not concave.
    """
    er = np.atleast_2d(np.asarray(er, float))
    pr = np.atleast_2d(np.asarray(pr, float))
    sd = er.std(axis=1, keepdims=True)
    z = (er - er.mean(axis=1, keepdims=True)) / np.maximum(sd, 1e-12)
    A = np.stack([z**2, z, np.ones_like(z)], axis=2)  # (fits, k, 3)
    AtA = np.einsum("fki,fkj->fij", A, A)
    Atb = np.einsum("fki,fk->fi", A, pr)
    ok = np.abs(np.linalg.det(AtA)) > 1e-9
    coef = np.full((er.shape[0], 3), np.nan)
    if ok.any():
        coef[ok] = np.linalg.solve(AtA[ok], Atb[ok][..., None])[..., 0]
    a, b = coef[:, 0], coef[:, 1]
    concave = a < -1e-12
    with np.errstate(all="ignore"):
        v = np.where(concave, -b / (2 * a), np.nan)
    inside = concave & (z.min(axis=1) < v) & (v < z.max(axis=1))
    return a, v, inside


@functools.lru_cache(maxsize=64)
def chance_concave_interior(k: int, n_perm: int = 5000, seed: int = 0) -> float:
    """P(concave fit with interior vertex) when performance ranks are a random permutation.

    Cached: a pure function of its arguments, called once per problem of every re-decision.
    """
    if k < 3:
        return np.nan
    er = np.arange(1, k + 1, dtype=float)
    rng = np.random.default_rng(seed)
    pr = np.argsort(rng.random((n_perm, k)), axis=1).astype(float) + 1
    return float(_quad_fits(np.broadcast_to(er, pr.shape), pr)[2].mean())


def _rank_rows(a: np.ndarray) -> np.ndarray:
    return stats.rankdata(a, axis=1, method="average")


def curvature_bootstrap(
    final: pd.DataFrame,
    exploration: str = "otsd_norm",
    performance: str = "performance",
    n_boot: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per problem: seed-bootstrap interval of the curvature and a test of an interior vertex.

    P1-C8 rule. Per problem, cell medians over seeds are ranked (exploration and
    performance, ≥ 3 methods) and performance rank is fitted as a quadratic in
    the standardised exploration rank. A problem supports "best methods have
    intermediate exploration" when the fit is concave *and* its vertex lies
    strictly inside the observed exploration range. Seeds are resampled jointly
    across methods (``n_boot`` times); ``frac_interior`` is the fraction of
    resamples with a concave fit and an interior vertex, giving two one-sided
    bootstrap p-values (for: 1 − frac, against: frac, each with the +1 rule) and
    a two-sided ``p`` for the Holm step of :mod:`boexplore.analysis.claimkit.decide`
    (``n_boot`` must be large enough for p to survive Holm: min p = 2/(n_boot+1)).
    ``curv_low``/``curv_high`` is the 95 % percentile interval of the curvature.
    ``effect`` = probit(frac_interior)/√seeds is the per-seed effect for the
    power analysis; ``chance`` is the permutation chance level of a concave fit
    with an interior vertex for that many methods.
    """
    check_columns(
        final, ("problem", "dim", "method", "seed", exploration, performance), "final table"
    )
    rng = np.random.default_rng(seed)
    rows = []
    cols_out = [
        "problem",
        "dim",
        "n_methods",
        "n_seeds",
        "curvature",
        "curv_low",
        "curv_high",
        "vertex",
        "interior",
        "frac_interior",
        "p",
        "mean_diff",
        "effect",
        "chance",
    ]
    chance_cache: dict[int, float] = {}
    for problem, g in final.groupby("problem", sort=True):
        g = g.drop_duplicates(["seed", "method"])
        X = g.set_index(["seed", "method"])[exploration].unstack("method")
        Y = g.set_index(["seed", "method"])[performance].unstack("method")
        cols = [c for c in X.columns if X[c].notna().any() and Y[c].notna().any()]
        if len(cols) < 3:
            continue
        x, y = X[cols].to_numpy(float), Y[cols].to_numpy(float)
        s = x.shape[0]
        idx = np.vstack([np.arange(s)[None, :], rng.integers(0, s, size=(n_boot, s))])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mx, my = np.nanmedian(x[idx], axis=1), np.nanmedian(y[idx], axis=1)
        good = np.isfinite(mx).all(axis=1) & np.isfinite(my).all(axis=1)
        er, pr = _rank_rows(np.nan_to_num(mx)), _rank_rows(np.nan_to_num(my))
        good &= np.ptp(er, axis=1) > 0
        curv, vert, inside = _quad_fits(er, pr)
        curv, inside = np.where(good, curv, np.nan), inside & good
        bc = curv[1:][np.isfinite(curv[1:])]
        hits = int(inside[1:].sum())
        frac = hits / n_boot
        p_for = (1 + n_boot - hits) / (n_boot + 1)
        p_against = (1 + hits) / (n_boot + 1)
        lo, hi = np.quantile(bc, [0.025, 0.975]) if bc.size else (np.nan, np.nan)
        clipped = min(max(frac, 0.5 / n_boot), 1 - 0.5 / n_boot)
        k = len(cols)
        if k not in chance_cache:
            chance_cache[k] = chance_concave_interior(k, 5000, seed)
        rows.append(
            {
                "problem": problem,
                "dim": int(g["dim"].iloc[0]),
                "n_methods": k,
                "n_seeds": s,
                "curvature": float(curv[0]),
                "curv_low": float(lo),
                "curv_high": float(hi),
                "vertex": float(vert[0]),
                "interior": bool(inside[0]),
                "frac_interior": frac,
                "p": min(1.0, 2 * min(p_for, p_against)),
                "mean_diff": frac - 0.5,
                "effect": float(stats.norm.ppf(clipped)) / np.sqrt(s),
                "chance": chance_cache[k],
            }
        )
    return pd.DataFrame(rows, columns=cols_out)
