"""OTSD–OE agreement (P1-C1): Spearman correlation across (problem, method) cells.

Each cell is the median over seeds of the final normalised OTSD and of the
final ``oe_rel`` (OE minus the uniform baseline, comparable across d). The
interval is a percentile bootstrap over cells.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from boexplore.analysis.summaries import check_columns


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rho, NaN when fewer than 3 pairs or a constant side."""
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 3 or np.unique(x).size < 2 or np.unique(y).size < 2:
        return np.nan
    return float(stats.spearmanr(x, y).statistic)


def otsd_oe_correlation(
    cells: pd.DataFrame, x: str = "otsd_norm", y: str = "oe_rel", n_boot: int = 1000, seed: int = 0
) -> dict[str, float]:
    """Spearman rho between two cell columns with a bootstrap CI over cells."""
    check_columns(cells, (x, y), "cell table")
    xv = cells[x].to_numpy(float)
    yv = cells[y].to_numpy(float)
    ok = np.isfinite(xv) & np.isfinite(yv)
    xv, yv = xv[ok], yv[ok]
    rho = spearman(xv, yv)
    lo = hi = np.nan
    if np.isfinite(rho):
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, xv.size, size=(n_boot, xv.size))
        b = np.array([spearman(xv[i], yv[i]) for i in idx])
        b = b[np.isfinite(b)]
        if b.size:
            lo, hi = (float(v) for v in np.quantile(b, [0.025, 0.975]))
    return {"rho": rho, "ci_low": lo, "ci_high": hi, "n_cells": int(xv.size)}


def per_problem_correlation(
    cells: pd.DataFrame, x: str = "otsd_norm", y: str = "oe_rel"
) -> pd.DataFrame:
    """Spearman rho across methods within each problem."""
    rows = [
        {
            "problem": p,
            "dim": int(g["dim"].iloc[0]),
            "rho": spearman(g[x].to_numpy(float), g[y].to_numpy(float)),
            "n_methods": len(g),
        }
        for p, g in cells.groupby("problem", sort=True)
    ]
    return pd.DataFrame(rows, columns=["problem", "dim", "rho", "n_methods"])
