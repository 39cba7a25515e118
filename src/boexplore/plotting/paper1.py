"""Draw a paper-1 figure from the analysis tables on disk (used by the workflow)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from boexplore.analysis.config import analysis_config
from boexplore.analysis.pipeline import oe_metric
from boexplore.plotting.budget import plot_budget_curves
from boexplore.plotting.effects import plot_performance_vs_exploration, plot_variant_effects
from boexplore.plotting.exploration import (
    plot_exploration_vs_dimension,
    plot_otsd_vs_oe,
    plot_trajectories,
)
from boexplore.plotting.hasse import plot_taxonomy_hasse
from boexplore.plotting.tours import plot_tour_quality


def _read(path: str | os.PathLike) -> pd.DataFrame:
    p = Path(path)
    return pd.read_parquet(p) if p.suffix == ".parquet" else pd.read_csv(p)


def draw_figure(
    name: str,
    inputs: Mapping[str, str | os.PathLike],
    png_path: str | os.PathLike,
    section: Mapping[str, Any] | None = None,
) -> list[Path]:
    """Dispatch on ``name``; ``inputs`` maps the rule's input names to table paths."""
    cfg = analysis_config(section)
    files = list(inputs.values())
    metrics = tuple(cfg["exploration_metrics"])
    if name == "exploration_trajectories":
        return plot_trajectories(
            _read(inputs["trajectories"]), png_path, files, cfg, metrics=metrics
        )
    if name == "otsd_vs_oe":
        corr = _read(inputs["correlation"])
        row = corr[corr["problem"] == "ALL"].iloc[0]
        stats = {
            "rho": row["rho"],
            "ci_low": row["ci_low"],
            "ci_high": row["ci_high"],
            "n_cells": row["n_methods"],
        }
        return plot_otsd_vs_oe(
            _read(inputs["cells"]), stats, png_path, files, cfg, y=oe_metric(cfg)
        )
    if name == "exploration_vs_dimension":
        return plot_exploration_vs_dimension(
            _read(inputs["cells"]), png_path, files, cfg, metrics=metrics
        )
    if name == "variant_effects":
        return plot_variant_effects(_read(inputs["diffs"]), png_path, files, cfg, metrics=metrics)
    if name == "performance_vs_exploration":
        return plot_performance_vs_exploration(
            _read(inputs["cells"]),
            png_path,
            files,
            cfg,
            exploration=cfg["primary_metric"],
            shape=_read(inputs["shape"]),
        )
    if name == "taxonomy_hasse":
        return plot_taxonomy_hasse(
            _read(inputs["pairs"]), png_path, files, cfg, metric=cfg["primary_metric"]
        )
    if name == "claims_budget":
        return plot_budget_curves(
            _read(inputs["budget"]), png_path, files, cfg, metric=cfg["primary_metric"]
        )
    if name == "tour_quality":
        return plot_tour_quality(_read(inputs["tours"]), png_path, files, cfg)
    raise ValueError(f"unknown paper-1 figure {name!r}")
