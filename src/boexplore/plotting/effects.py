"""Figures 4–5: variant effects (q, trust region, RAASP) and performance vs exploration."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from boexplore.plotting.exploration import METRIC_LABELS, _legend, facet_grid
from boexplore.plotting.io import save_figure
from boexplore.plotting.style import method_colors, method_order, set_style

FACTOR_LABELS = {"q": "batch size q", "trust_region": "trust region", "raasp": "RAASP"}


def plot_variant_effects(
    diffs: pd.DataFrame,
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    config_section: Mapping[str, Any] | None = None,
    metrics: tuple[str, ...] = ("otsd_norm", "oe_rel"),
) -> list[Path]:
    """Figure 4: paired variant − base differences per factor (one dot per problem × seed).

    Missing factors get an explicit "no matched variants" panel, so the figure
    always exists and says what was not run.
    """
    set_style()
    fig, axes = plt.subplots(
        len(metrics),
        len(FACTOR_LABELS),
        squeeze=False,
        figsize=(3.0 * len(FACTOR_LABELS) + 0.6, 2.4 * len(metrics)),
    )
    labels = method_order(diffs["variant"]) if not diffs.empty else []
    colors = method_colors(labels)
    rng = np.random.default_rng(0)
    for i, metric in enumerate(metrics):
        for j, factor in enumerate(FACTOR_LABELS):
            ax = axes[i, j]
            sub = diffs[(diffs["metric"] == metric) & (diffs["factor"] == factor)]
            ax.axhline(0.0, color="grey", lw=0.8, ls="--")
            if sub.empty:
                ax.text(
                    0.5,
                    0.5,
                    "no matched variants",
                    ha="center",
                    va="center",
                    transform=ax.transAxes,
                    color="grey",
                )
                ax.set_xticks([])
            else:
                variants = method_order(sub["variant"])
                for k, v in enumerate(variants):
                    y = sub.loc[sub["variant"] == v, "diff"].to_numpy(float)
                    ax.scatter(
                        k + rng.uniform(-0.15, 0.15, y.size), y, s=14, color=colors[v], alpha=0.8
                    )
                    ax.plot([k - 0.3, k + 0.3], [np.nanmedian(y)] * 2, color="black", lw=2)
                ax.set_xticks(
                    range(len(variants)),
                    [f"{v}\nvs {sub.loc[sub['variant'] == v, 'base'].iloc[0]}" for v in variants],
                    fontsize=7,
                )
            if i == 0:
                ax.set_title(FACTOR_LABELS[factor])
            if j == 0:
                ax.set_ylabel(f"Δ {METRIC_LABELS.get(metric, metric)}")
    fig.tight_layout()
    return save_figure(fig, png_path, inputs, config_section)


def plot_performance_vs_exploration(
    cells: pd.DataFrame,
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    config_section: Mapping[str, Any] | None = None,
    exploration: str = "otsd_norm",
    shape: pd.DataFrame | None = None,
) -> list[Path]:
    """Figure 5: per problem, performance rank vs exploration rank with the quadratic fit."""
    set_style()
    problems = (
        cells[["problem", "dim"]]
        .drop_duplicates()
        .sort_values(["dim", "problem"])["problem"]
        .tolist()
    )
    labels = method_order(cells["method"])
    colors = method_colors(labels)
    rows, cols = facet_grid(len(problems))
    fig, axes = plt.subplots(rows, cols, squeeze=False, figsize=(2.6 * cols + 0.6, 2.4 * rows))
    for ax in axes.flat[len(problems) :]:
        ax.set_visible(False)
    for ax, problem in zip(axes.flat, problems, strict=False):
        g = cells[cells["problem"] == problem].dropna(subset=[exploration, "performance"])
        er = g[exploration].rank(method="average")
        pr = g["performance"].rank(method="average")
        ax.scatter(er, pr, c=[colors[m] for m in g["method"]], s=30, edgecolor="white")
        if len(g) >= 3:
            z = (er - er.mean()) / max(er.std(ddof=0), 1e-12)
            coef = np.polyfit(z, pr, 2)
            grid = np.linspace(er.min(), er.max(), 50)
            zg = (grid - er.mean()) / max(er.std(ddof=0), 1e-12)
            ax.plot(grid, np.polyval(coef, zg), color="black", lw=1, ls=":")
        title = f"{problem} (d={int(g['dim'].iloc[0])})" if len(g) else problem
        if shape is not None and problem in set(shape["problem"]):
            c = float(shape.loc[shape["problem"] == problem, "curvature"].iloc[0])
            title += " ∩" if c < 0 else " ∪"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("exploration rank (1 = least)")
        ax.set_ylabel("performance rank (high = best)")
    _legend(fig, colors, labels)
    fig.tight_layout()
    return save_figure(fig, png_path, inputs, config_section)
