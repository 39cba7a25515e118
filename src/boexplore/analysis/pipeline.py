"""Run every paper-1 analysis on an aggregated metrics table.

``run_analysis`` returns all result tables in one object; ``write_tables``
stores them under ``results/<run>/tables/``. The claims table is built from
this object by :mod:`boexplore.analysis.paper1.claims`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boexplore.analysis.config import analysis_config
from boexplore.analysis.correlation import otsd_oe_correlation, per_problem_correlation
from boexplore.analysis.paper_order import compare_pairs, kendall_with_paper, paper_levels
from boexplore.analysis.performance import nonmonotone_test, per_problem_shape
from boexplore.analysis.summaries import (
    cell_medians,
    final_rows,
    performance_score,
    ranks_within_problem,
    summarize_final,
    trajectory_summary,
)
from boexplore.analysis.taxonomy import PartialOrder, dimension_subsets, taxonomy
from boexplore.analysis.variants import (
    effect_summary,
    match_variants,
    mechanism_activity,
    paired_differences,
)
from boexplore.io import atomic_write
from boexplore.metrics.oe_baseline import (
    UniformOEBaseline,
    add_oe_ref_rel,
    add_oe_rel,
    reference_prefix_estimator,
)

META_COLUMNS = ("method_spec", "base_method", "q", "trust_region", "raasp")


@dataclass
class AnalysisResult:
    """Every analysis table plus the taxonomy partial orders."""

    config: dict[str, Any]
    metrics: pd.DataFrame
    final: pd.DataFrame
    cells: pd.DataFrame
    summary_final: pd.DataFrame
    trajectories: pd.DataFrame
    taxonomy_pairs: pd.DataFrame
    taxonomy_classes: pd.DataFrame
    orders: dict[tuple[str, str], PartialOrder]
    paper_pairs: pd.DataFrame
    paper_tau: pd.DataFrame
    correlation: dict[str, float]
    correlation_per_problem: pd.DataFrame
    performance_shape: pd.DataFrame
    performance_test: dict[str, float]
    variant_pairs: pd.DataFrame
    variant_diffs: pd.DataFrame
    variant_summary: pd.DataFrame
    oe_baseline: pd.DataFrame
    min_seeds_seen: int
    notes: list[str] = field(default_factory=list)
    activity: pd.DataFrame | None = None  # per-run trust-region / RAASP activity (P1-C7)
    final_all: pd.DataFrame | None = None  # with the runs under other GP priors (settings only)


def _with_metadata(metrics: pd.DataFrame) -> pd.DataFrame:
    """Fill metadata columns the analysis needs when an older table lacks them."""
    out = metrics.copy()
    defaults = {
        "method_spec": out["method"],
        "base_method": out["method"],
        "q": 1,
        "trust_region": False,
        "raasp": False,
    }
    for col in META_COLUMNS:
        if col not in out.columns:
            out[col] = defaults[col]
    out["q"] = out["q"].fillna(1).astype(int)
    out["trust_region"] = out["trust_region"].fillna(False).astype(bool)
    out["raasp"] = out["raasp"].fillna(False).astype(bool)
    return out


def oe_metric(cfg: Mapping[str, Any]) -> str:
    """The OE statistic that decides OE parts and P1-C1: the OE entry of
    ``exploration_metrics`` (``oe_rel``, ours, or ``oe_ref_rel``, the authors')."""
    return next((x for x in cfg["exploration_metrics"] if x.startswith("oe_")), "oe_rel")


def alternative_prior_labels(cfg: Mapping[str, Any]) -> set[str]:
    """Labels run under a GP prior other than the default (``sensitivity.gp_prior``): they
    enter only the prior's re-decision, never the default claims, tables or figures."""
    maps = cfg["sensitivity"].get("gp_prior", {})
    return {v for mapping in maps.values() for k, v in mapping.items() if k != v}


def uses_oe_ref(cfg: Mapping[str, Any]) -> bool:
    """Whether the analysis needs the authors' OE centred on uniform points (``oe_ref_rel``)."""
    wanted = {*cfg["exploration_metrics"], *cfg["sensitivity"].get("oe_statistic", {})}
    return "oe_ref_rel" in wanted


def run_analysis(
    metrics: pd.DataFrame,
    section: Mapping[str, Any] | None = None,
    baseline: UniformOEBaseline | None = None,
    activity: pd.DataFrame | None = None,
) -> AnalysisResult:
    """All paper-1 analyses from the aggregated metrics table.

    ``activity`` (:func:`boexplore.analysis.variants.mechanism_activity` of the
    traces) tells P1-C7 where the trust region / RAASP acted; when omitted it is
    derived from the metrics table if that carries the engine's ``tr_length`` /
    ``raasp_n_perturbed`` columns, else C7 notes that activity was not recorded.
    """
    cfg = analysis_config(section)
    if metrics.empty:
        raise ValueError("metrics table is empty: nothing to analyse")
    seed, n_boot = int(cfg["seed"]), int(cfg["n_boot"])
    notes: list[str] = []
    baseline = baseline or UniformOEBaseline(
        n_rep=int(cfg["oe_baseline"]["n_rep"]), seed=int(cfg["oe_baseline"]["seed"])
    )
    m = add_oe_rel(_with_metadata(metrics), baseline)
    if uses_oe_ref(cfg):
        ref_baseline = UniformOEBaseline(
            n_rep=int(cfg["oe_baseline"]["n_rep"]),
            seed=int(cfg["oe_baseline"]["seed"]),
            estimator=reference_prefix_estimator,
        )
        m = add_oe_ref_rel(m, ref_baseline)
    final_all = final_rows(m)
    final_all["performance"] = performance_score(final_all)
    alternative = alternative_prior_labels(cfg)
    if alternative:  # the claims are decided under the default prior; the others are settings
        m = m[~m["method"].isin(alternative)].reset_index(drop=True)
        final = final_all[~final_all["method"].isin(alternative)].reset_index(drop=True)
    else:
        final = final_all
    xmetrics = list(cfg["exploration_metrics"])
    primary = cfg["primary_metric"]

    summary = pd.concat(
        [ranks_within_problem(summarize_final(final, x, n_boot, seed)) for x in xmetrics],
        ignore_index=True,
    )
    traj = pd.concat(
        [trajectory_summary(m, x, n_boot=min(n_boot, 200), seed=seed) for x in xmetrics],
        ignore_index=True,
    )
    cells = cell_medians(final, [*xmetrics, "performance"])
    min_seeds_seen = int(cells["n_seeds"].min())

    # taxonomy per subset and metric
    tcfg = cfg["taxonomy"]
    pairs_rows, class_rows, paper_rows, tau_rows = [], [], [], []
    orders: dict[tuple[str, str], PartialOrder] = {}
    present = sorted(final["method"].unique())
    is_base = (final["q"] == 1) & ~final["trust_region"] & ~final["raasp"]
    ranked = None if tcfg["include_variants"] else sorted(final.loc[is_base, "method"].unique())
    levels = paper_levels(cfg["groups"], cfg["paper_order"], present)
    notes.extend(sorted(set(levels.notes)))
    for subset, part in dimension_subsets(final, cfg["low_d_max"], cfg["high_d_min"]).items():
        if part.empty:
            notes.append(f"taxonomy: no problems in subset {subset}")
            continue
        for x in xmetrics:
            dom, order = taxonomy(
                part,
                x,
                alpha=tcfg["alpha"],
                correction=tcfg["correction"],
                majority=tcfg["majority"],
                test=tcfg["test"],
                methods=ranked,
            )
            orders[(subset, x)] = order
            pairs_rows.append(dom.assign(subset=subset, metric=x))
            for k, (members, layer) in enumerate(zip(order.classes, order.layers(), strict=True)):
                class_rows.append(
                    {
                        "subset": subset,
                        "metric": x,
                        "class": k,
                        "members": " ≈ ".join(members),
                        "layer": layer,
                    }
                )
            paper_rows.append(compare_pairs(order, levels).assign(subset=subset, metric=x))
            pcells = cells[cells["problem"].isin(part["problem"].unique())]
            tau, lo, hi, nl = kendall_with_paper(pcells, x, levels, n_boot=n_boot, seed=seed)
            tau_rows.append(
                {
                    "subset": subset,
                    "metric": x,
                    "tau": tau,
                    "ci_low": lo,
                    "ci_high": hi,
                    "n_labels": nl,
                    "n_problems": int(part["problem"].nunique()),
                }
            )

    corr = otsd_oe_correlation(cells, "otsd_norm", oe_metric(cfg), n_boot=n_boot, seed=seed)
    shape = per_problem_shape(cells, primary, "performance")
    vpairs = match_variants(final[["method", *META_COLUMNS]])
    if vpairs.empty:
        notes.append("variants: no batch / trust-region / RAASP variant matched a base method")
    vdiffs = paired_differences(final, vpairs, tuple(xmetrics))
    if activity is None and {"tr_length", "raasp_n_perturbed"} & set(metrics.columns):
        activity = mechanism_activity(metrics)
    return AnalysisResult(
        config=cfg,
        metrics=m,
        final=final,
        final_all=final_all if alternative else None,
        cells=cells,
        summary_final=summary,
        trajectories=traj,
        taxonomy_pairs=pd.concat(pairs_rows, ignore_index=True)
        if pairs_rows
        else pd.DataFrame(
            columns=[
                "a",
                "b",
                "n_problems",
                "n_support",
                "support_frac",
                "dominates",
                "subset",
                "metric",
            ]
        ),
        taxonomy_classes=pd.DataFrame(
            class_rows, columns=["subset", "metric", "class", "members", "layer"]
        ),
        orders=orders,
        paper_pairs=pd.concat(paper_rows, ignore_index=True)
        if paper_rows
        else pd.DataFrame(columns=["a", "b", "paper", "observed", "status", "subset", "metric"]),
        paper_tau=pd.DataFrame(
            tau_rows,
            columns=["subset", "metric", "tau", "ci_low", "ci_high", "n_labels", "n_problems"],
        ),
        correlation=corr,
        correlation_per_problem=per_problem_correlation(cells, "otsd_norm", oe_metric(cfg)),
        performance_shape=shape,
        performance_test=nonmonotone_test(shape),
        variant_pairs=vpairs,
        variant_diffs=vdiffs,
        variant_summary=effect_summary(vdiffs),
        oe_baseline=baseline.table(),
        min_seeds_seen=min_seeds_seen,
        notes=notes,
        activity=activity,
    )


TABLE_FILES: dict[str, str] = {
    "summary_final": "paper1_summary_final.csv",
    "trajectories": "paper1_trajectories.parquet",
    "cells": "paper1_cells.csv",
    "taxonomy_pairs": "paper1_taxonomy_pairs.csv",
    "taxonomy_classes": "paper1_taxonomy_classes.csv",
    "paper_pairs": "paper1_taxonomy_vs_paper.csv",
    "paper_tau": "paper1_kendall_tau.csv",
    "correlation": "paper1_correlation.csv",
    "performance_shape": "paper1_performance.csv",
    "variant_diffs": "paper1_variant_diffs.csv",
    "variant_summary": "paper1_variant_effects.csv",
    "oe_baseline": "paper1_oe_uniform_baseline.csv",
    "final": "paper1_final.parquet",
}


def write_tables(result: AnalysisResult, outdir: str | os.PathLike) -> dict[str, Path]:
    """Write every table of ``result`` to ``outdir``; returns name → path."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name, fname in TABLE_FILES.items():
        if name == "correlation":
            df = pd.concat(
                [
                    pd.DataFrame(
                        [
                            {
                                "problem": "ALL",
                                "dim": np.nan,
                                "rho": result.correlation["rho"],
                                "ci_low": result.correlation["ci_low"],
                                "ci_high": result.correlation["ci_high"],
                                "n_methods": result.correlation["n_cells"],
                            }
                        ]
                    ),
                    result.correlation_per_problem,
                ],
                ignore_index=True,
            )
        else:
            df = getattr(result, name)
        atomic_write(df, out / fname)
        written[name] = out / fname
    return written
