"""Views of an analysis result on other data: a budget prefix, a seed resample, fewer problems.

The claims of :mod:`boexplore.analysis.paper1.claims` read a handful of fields of an
:class:`~boexplore.analysis.pipeline.AnalysisResult` (``final``, ``cells``,
``correlation``, ``paper_tau``, ``min_seeds_seen``). :func:`rederive` recomputes
exactly those from another ``final`` table, so every re-decision (issues 22, 27,
28) runs the same claim code as the headline verdict instead of a copy of it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from boexplore.analysis.correlation import otsd_oe_correlation
from boexplore.analysis.paper_order import kendall_with_paper, paper_levels
from boexplore.analysis.pipeline import AnalysisResult, oe_metric
from boexplore.analysis.summaries import RUN_KEYS, cell_medians, performance_score


def final_at_fraction(metrics: pd.DataFrame, fraction: float) -> pd.DataFrame:
    """Per run, the row at prefix ``n = ceil(fraction · n_total)`` (the run's own budget)."""
    if not 0 < fraction <= 1:
        raise ValueError(f"budget fraction must be in (0, 1], got {fraction}")
    total = metrics.groupby(list(RUN_KEYS))["n"].transform("max")
    cut = np.ceil(fraction * total.to_numpy(float) - 1e-9)
    keep = metrics[metrics["n"].to_numpy(float) <= np.maximum(cut, 1)]
    return _last_rows(keep)


def final_at_steps(metrics: pd.DataFrame, steps: int) -> pd.DataFrame:
    """Per run, the last row of BO iteration ``steps`` (runs with fewer iterations left out)."""
    if "iteration" not in metrics.columns:
        raise ValueError("metrics table has no 'iteration' column: BO-step prefixes need it")
    reach = metrics.groupby(list(RUN_KEYS))["iteration"].transform("max") >= steps
    keep = metrics[reach & (metrics["iteration"] <= steps)]
    return _last_rows(keep)


def _last_rows(metrics: pd.DataFrame) -> pd.DataFrame:
    if metrics.empty:
        return metrics.copy()
    idx = metrics.groupby(list(RUN_KEYS), sort=True)["n"].idxmax()
    out = metrics.loc[idx].reset_index(drop=True)
    out["performance"] = performance_score(out)
    return out


def resample_seeds(final: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Seed bootstrap: per problem, draw its seeds with replacement, jointly for all methods.

    Drawn seeds are relabelled 0..s−1 so a seed drawn twice counts as two
    (paired) replicates; methods of one problem share the draw, so the seed pairing
    of every unit is kept.
    """
    parts = []
    for _, g in final.groupby("problem", sort=True):
        seeds = np.sort(g["seed"].unique())
        draw = seeds[rng.integers(0, seeds.size, seeds.size)]
        by_seed = {s: grp for s, grp in g.groupby("seed")}
        parts += [by_seed[s].assign(seed=i) for i, s in enumerate(draw)]
    return pd.concat(parts, ignore_index=True) if parts else final.iloc[:0].copy()


def rederive(r: AnalysisResult, final: pd.DataFrame, n_boot: int) -> AnalysisResult:
    """``r`` with the claim inputs recomputed from ``final`` (intervals with ``n_boot``)."""
    cfg = r.config
    xmetrics = list(cfg["exploration_metrics"])
    primary = cfg["primary_metric"]
    seed = int(cfg["seed"])
    cells = cell_medians(final, [*xmetrics, "performance"])
    levels = paper_levels(cfg["groups"], cfg["paper_order"], sorted(final["method"].unique()))
    tau, lo, hi, nl = kendall_with_paper(cells, primary, levels, n_boot=n_boot, seed=seed)
    paper_tau = pd.DataFrame(
        [
            {
                "subset": "all",
                "metric": primary,
                "tau": tau,
                "ci_low": lo,
                "ci_high": hi,
                "n_labels": nl,
                "n_problems": int(final["problem"].nunique()),
            }
        ]
    )
    oe = oe_metric(cfg)
    corr = (
        otsd_oe_correlation(cells, "otsd_norm", oe, n_boot=n_boot, seed=seed)
        if {"otsd_norm", oe} <= set(cells.columns)
        else {"rho": math.nan, "ci_low": math.nan, "ci_high": math.nan, "n_cells": 0}
    )
    return dataclasses.replace(
        r,
        final=final,
        cells=cells,
        paper_tau=paper_tau,
        correlation=corr,
        min_seeds_seen=int(cells["n_seeds"].min()) if len(cells) else 0,
    )


def with_config(r: AnalysisResult, **changes: object) -> AnalysisResult:
    """``r`` with some analysis-config keys replaced (a setting of the sensitivity grid)."""
    cfg = {**r.config, **changes}
    return dataclasses.replace(r, config=cfg)
