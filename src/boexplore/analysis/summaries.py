"""Per-(problem, dim, method) summaries of exploration metrics over seeds.

The input is the aggregated ``metrics.parquet`` table (one row per prefix
size ``n`` of every run). Final values are taken at the largest ``n`` of each
run; summaries are the median over seeds with a percentile-bootstrap interval
of that median.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from boexplore.analysis.stats import bootstrap_ci

RUN_KEYS: tuple[str, ...] = ("problem", "method", "seed")
CELL_KEYS: tuple[str, ...] = ("problem", "dim", "method")
REQUIRED_COLUMNS: tuple[str, ...] = ("problem", "dim", "method", "seed", "n", "otsd_norm", "oe_kl")


def check_columns(df: pd.DataFrame, columns: Sequence[str], what: str = "metrics table") -> None:
    """Raise ValueError naming every missing column."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} is missing columns {missing}; has {list(df.columns)}")


def final_rows(metrics: pd.DataFrame) -> pd.DataFrame:
    """The last prefix (largest ``n``) of every (problem, method, seed) run."""
    check_columns(metrics, REQUIRED_COLUMNS)
    if metrics.empty:
        return metrics.copy()
    idx = metrics.groupby(list(RUN_KEYS), sort=True)["n"].idxmax()
    return metrics.loc[idx].reset_index(drop=True)


def performance_score(final: pd.DataFrame) -> pd.Series:
    """Higher-is-better performance per row: −regret when known, else best_so_far.

    Regret is used per problem only when it is finite on every row of that
    problem, so scores within a problem are always on one scale.
    """
    check_columns(final, ("problem", "best_so_far"), "final table")
    score = final["best_so_far"].astype(float).copy()
    if "regret" in final.columns:
        reg = final["regret"].astype(float)
        ok = reg.notna().groupby(final["problem"]).transform("all")
        score[ok] = -reg[ok]
    return score


def summarize_final(
    final: pd.DataFrame, metric: str, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Median over seeds (with bootstrap interval) of ``metric`` per cell."""
    check_columns(final, (*CELL_KEYS, metric), "final table")
    rows = []
    for (problem, dim, method), grp in final.groupby(list(CELL_KEYS), sort=True):
        med, lo, hi = bootstrap_ci(grp[metric].to_numpy(), np.median, n_boot=n_boot, seed=seed)
        rows.append(
            {"problem": problem, "dim": int(dim), "method": method, "metric": metric,
             "median": med, "ci_low": lo, "ci_high": hi,
             "n_seeds": int(grp[metric].notna().sum())}
        )
    return pd.DataFrame(rows, columns=["problem", "dim", "method", "metric", "median",
                                       "ci_low", "ci_high", "n_seeds"])


def trajectory_summary(
    metrics: pd.DataFrame, metric: str, n_boot: int = 200, level: float = 0.95, seed: int = 0
) -> pd.DataFrame:
    """Median over seeds of ``metric`` at every prefix size with a bootstrap band.

    The bootstrap resamples seeds (the same resample for every ``n`` so the
    band is a coherent trajectory band), vectorised over ``n``.
    """
    check_columns(metrics, (*CELL_KEYS, "seed", "n", metric))
    out = []
    rng = np.random.default_rng(seed)
    alpha = (1.0 - level) / 2.0
    for (problem, dim, method), grp in metrics.groupby(list(CELL_KEYS), sort=True):
        wide = grp.pivot_table(index="n", columns="seed", values=metric, aggfunc="first")
        mat = wide.to_numpy(dtype=float)  # (n, S)
        med = np.nanmedian(mat, axis=1) if mat.size else np.array([])
        s = mat.shape[1]
        if s > 1:
            idx = rng.integers(0, s, size=(n_boot, s))
            boots = np.nanmedian(mat[:, idx], axis=2)  # (n, B)
            lo, hi = np.nanquantile(boots, [alpha, 1 - alpha], axis=1)
        else:
            lo, hi = med, med
        out.append(pd.DataFrame({"problem": problem, "dim": int(dim), "method": method,
                                 "n": wide.index.to_numpy(), "median": med,
                                 "ci_low": lo, "ci_high": hi, "n_seeds": s}))
    if not out:
        return pd.DataFrame(columns=["problem", "dim", "method", "n", "median", "ci_low",
                                     "ci_high", "n_seeds"])
    res = pd.concat(out, ignore_index=True)
    res.insert(3, "metric", metric)
    return res


def ranks_within_problem(summary: pd.DataFrame, value: str = "median") -> pd.DataFrame:
    """Add ``rank`` per problem: 1 = largest value (most explorative); ties averaged."""
    check_columns(summary, ("problem", value), "summary table")
    out = summary.copy()
    out["rank"] = out.groupby("problem")[value].rank(ascending=False, method="average")
    return out


def cell_medians(final: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Median over seeds of several columns per (problem, dim, method) cell."""
    check_columns(final, (*CELL_KEYS, *columns), "final table")
    agg = final.groupby(list(CELL_KEYS), sort=True)[list(columns)].median()
    agg["n_seeds"] = final.groupby(list(CELL_KEYS), sort=True)["seed"].nunique()
    return agg.reset_index()
