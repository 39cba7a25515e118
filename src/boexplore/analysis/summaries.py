"""Per-(problem, dim, method) summaries of exploration metrics over seeds.

The input is the aggregated ``metrics.parquet`` table (one row per prefix
size ``n`` of every run). Final values are taken at the largest ``n`` of each
run; summaries are the median over seeds with a percentile-bootstrap interval
of that median.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.stats import bootstrap_ci

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
            {
                "problem": problem,
                "dim": int(dim),
                "method": method,
                "metric": metric,
                "median": med,
                "ci_low": lo,
                "ci_high": hi,
                "n_seeds": int(grp[metric].notna().sum()),
            }
        )
    return pd.DataFrame(
        rows,
        columns=["problem", "dim", "method", "metric", "median", "ci_low", "ci_high", "n_seeds"],
    )


def trajectory_summary(
    metrics: pd.DataFrame,
    metric: str,
    n_boot: int = 200,
    level: float = 0.95,
    seed: int = 0,
    chunk: int = 4096,
) -> pd.DataFrame:
    """Median over seeds of ``metric`` at every prefix size with a bootstrap band.

    The bootstrap resamples seeds (the same resample for every row, so the
    band is a coherent trajectory band); vectorised over rows in chunks.
    """
    check_columns(metrics, (*CELL_KEYS, "seed", "n", metric))
    cols = ["problem", "dim", "method", "metric", "n", "median", "ci_low", "ci_high", "n_seeds"]
    if metrics.empty:
        return pd.DataFrame(columns=cols)
    wide = metrics.pivot_table(
        index=[*CELL_KEYS, "n"], columns="seed", values=metric, aggfunc="first", dropna=False
    )
    mat = wide.to_numpy(dtype=float)  # (rows, seeds)
    alpha = (1.0 - level) / 2.0
    with np.errstate(all="ignore"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            med = np.nanmedian(mat, axis=1)
            lo, hi = med.copy(), med.copy()
            s = mat.shape[1]
            if s > 1:
                idx = np.random.default_rng(seed).integers(0, s, size=(n_boot, s))
                for start in range(0, mat.shape[0], chunk):
                    boots = np.nanmedian(mat[start : start + chunk][:, idx], axis=2)
                    q = np.nanquantile(boots, [alpha, 1 - alpha], axis=1)
                    lo[start : start + chunk], hi[start : start + chunk] = q[0], q[1]
    out = wide.index.to_frame(index=False)
    out["metric"] = metric
    out["median"], out["ci_low"], out["ci_high"] = med, lo, hi
    out["n_seeds"] = np.isfinite(mat).sum(axis=1)
    out = out[out["n_seeds"] > 0]
    out["dim"] = out["dim"].astype(int)
    return out[cols].reset_index(drop=True)


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
