"""Stage 4: every trace against the OTSD bounds.

For each prefix the optimal tour length OPT satisfies
``otsd_lb <= OPT <= OTSD_heuristic <= Psi(d, n)``; we check the two observable
inequalities (``otsd_lb <= otsd`` and ``otsd <= psi``) and report how tight they are.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from boexplore.pipeline.io import atomic_write_csv, atomic_write_parquet

log = logging.getLogger("boexplore.pipeline")

REL_TOL = 1e-9  # float round-off allowance on the inequalities


def check_bounds(metrics: pd.DataFrame) -> pd.DataFrame:
    """Per run: fraction of prefixes inside the bounds and tightness ratios."""
    m = metrics[metrics["n"] >= 2]
    inside_lb = m["otsd_lb"] <= m["otsd"] * (1 + REL_TOL) + 1e-12
    inside_ub = m["otsd"] <= m["psi"] * (1 + REL_TOL)
    frame = m.assign(
        inside_lower=inside_lb,
        inside_upper=inside_ub,
        ratio_to_lb=np.where(m["otsd_lb"] > 0, m["otsd"] / m["otsd_lb"].where(m["otsd_lb"] > 0), np.nan),
    )
    keys = ["problem", "dim", "method", "seed"]
    per_run = frame.groupby(keys, as_index=False).agg(
        n_prefixes=("n", "size"),
        frac_inside_lower=("inside_lower", "mean"),
        frac_inside_upper=("inside_upper", "mean"),
        median_ratio_to_lb=("ratio_to_lb", "median"),
        max_ratio_to_lb=("ratio_to_lb", "max"),
        final_otsd_over_psi=("otsd_norm", "last"),
        max_otsd_over_psi=("otsd_norm", "max"),
    )
    per_run["frac_inside_both"] = frame.groupby(keys)[["inside_lower", "inside_upper"]].apply(
        lambda g: float((g["inside_lower"] & g["inside_upper"]).mean())
    ).to_numpy()
    return per_run


def summarize_bounds(per_run: pd.DataFrame) -> pd.DataFrame:
    """Per (problem, method): worst-case coverage and median tightness over seeds."""
    return per_run.groupby(["problem", "dim", "method"], as_index=False).agg(
        runs=("seed", "size"),
        frac_inside_both_min=("frac_inside_both", "min"),
        median_ratio_to_lb=("median_ratio_to_lb", "median"),
        max_ratio_to_lb=("max_ratio_to_lb", "max"),
        max_otsd_over_psi=("max_otsd_over_psi", "max"),
    )


def bound_checks(metrics_path: str | Path, table_out: str | Path, summary_out: str | Path) -> pd.DataFrame:
    """Read the aggregated metrics, write the per-run table and the summary CSV."""
    metrics = pd.read_parquet(metrics_path)
    per_run = check_bounds(metrics)
    atomic_write_parquet(per_run, table_out)
    summary = summarize_bounds(per_run)
    atomic_write_csv(summary, summary_out)
    bad = per_run[per_run["frac_inside_both"] < 1]
    if len(bad):
        log.warning("%d runs have prefixes outside the OTSD bounds", len(bad))
    return summary
