"""Figures 1–3: exploration over iterations, OTSD vs OE, exploration vs dimension."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from boexplore.plotting.io import save_figure
from boexplore.plotting.style import method_colors, method_order, set_style

METRIC_LABELS: dict[str, str] = {
    "otsd_norm": "normalised OTSD",
    "oe_rel": "OE − OE(uniform)",
    "oe_ref_rel": "authors' OE − its uniform mean (n > d)",
    "oe_kl": "OE (k-NN)",
}


def _legend(fig: plt.Figure, colors: Mapping[str, str], labels: Iterable[str]) -> None:
    handles = [Line2D([], [], color=colors[m], lw=2, marker="o", ms=4, label=m) for m in labels]
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), title="method")


TRAJ_COLS = 3  # problems per row in the trajectories figure


def plot_trajectories(
    traj: pd.DataFrame,
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    config_section: Mapping[str, Any] | None = None,
    metrics: tuple[str, ...] = ("otsd_norm", "oe_rel"),
) -> list[Path]:
    """Figure 1: median (line) and bootstrap band per method vs evaluations, per problem."""
    set_style()
    traj = traj[traj["metric"].isin(metrics)]
    if traj.empty:
        raise ValueError("trajectory table has none of the metrics " + ", ".join(metrics))
    problems = (
        traj[["problem", "dim"]]
        .drop_duplicates()
        .sort_values(["dim", "problem"])["problem"]
        .tolist()
    )
    present = [m for m in metrics if m in set(traj["metric"])]
    labels = method_order(traj["method"])
    colors = method_colors(labels)
    # Reflow: at most TRAJ_COLS problems per row, one block of metric rows per problem row,
    # so the figure stays readable at report width however many problems there are.
    ncol = min(TRAJ_COLS, len(problems))
    blocks = -(-len(problems) // ncol)
    nrow = blocks * len(present)
    fig, axes = plt.subplots(nrow, ncol, squeeze=False, figsize=(2.6 * ncol + 0.5, 2.2 * nrow))
    for j, problem in enumerate(problems):
        block, col = divmod(j, ncol)
        for i, metric in enumerate(present):
            ax = axes[block * len(present) + i, col]
            sub = traj[(traj["metric"] == metric) & (traj["problem"] == problem)]
            for m in labels:
                g = sub[sub["method"] == m].sort_values("n")
                if g.empty:
                    continue
                ax.plot(g["n"], g["median"], color=colors[m], lw=1.4)
                ax.fill_between(
                    g["n"], g["ci_low"], g["ci_high"], color=colors[m], alpha=0.15, lw=0
                )
            if i == 0:
                d = int(sub["dim"].iloc[0]) if not sub.empty else "?"
                ax.set_title(f"{problem} (d={d})")
            if col == 0:
                ax.set_ylabel(METRIC_LABELS.get(metric, metric))
            if i == len(present) - 1:
                ax.set_xlabel("evaluations")
    for k in range(len(problems), blocks * ncol):
        for i in range(len(present)):
            axes[(k // ncol) * len(present) + i, k % ncol].axis("off")
    _legend(fig, colors, labels)
    fig.tight_layout()
    return save_figure(fig, png_path, inputs, config_section)


def plot_otsd_vs_oe(
    cells: pd.DataFrame,
    correlation: Mapping[str, float],
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    config_section: Mapping[str, Any] | None = None,
    x: str = "otsd_norm",
    y: str = "oe_rel",
) -> list[Path]:
    """Figure 2: one point per (problem, method) cell; Spearman rho in the title. Cells
    without a value (the authors' OE at n <= d) are left out, and their dimensions with them."""
    set_style()
    cells = cells[np.isfinite(cells[x].to_numpy(float)) & np.isfinite(cells[y].to_numpy(float))]
    labels = method_order(cells["method"])
    colors = method_colors(labels)
    fig, ax = plt.subplots(figsize=(4.2, 3.4))
    dims = sorted(cells["dim"].unique())
    markers = dict(zip(dims, "osD^v<>pP*hX", strict=False))
    for m in labels:
        g = cells[cells["method"] == m]
        for d, gd in g.groupby("dim"):
            ax.scatter(
                gd[x],
                gd[y],
                color=colors[m],
                marker=markers.get(d, "o"),
                s=28,
                edgecolor="white",
                linewidth=0.4,
            )
    rho, lo, hi = (correlation.get(k, np.nan) for k in ("rho", "ci_low", "ci_high"))
    ax.set_title(
        f"Spearman ρ = {rho:.2f} [{lo:.2f}, {hi:.2f}], "
        f"{int(correlation.get('n_cells', len(cells)))} cells"
    )
    ax.set_xlabel(f"final {METRIC_LABELS.get(x, x)} (median over seeds)")
    ax.set_ylabel(f"final {METRIC_LABELS.get(y, y)}")
    handles = [Line2D([], [], color=colors[m], marker="o", ls="", label=m) for m in labels]
    handles += [
        Line2D([], [], color="grey", marker=markers[d], ls="", label=f"d={d}")
        for d in dims
        if d in markers
    ]
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=7)
    fig.tight_layout()
    return save_figure(fig, png_path, inputs, config_section)


def plot_exploration_vs_dimension(
    cells: pd.DataFrame,
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    config_section: Mapping[str, Any] | None = None,
    metrics: tuple[str, ...] = ("otsd_norm", "oe_rel"),
    relative_to: str | None = "random",
) -> list[Path]:
    """Figure 3: exploration per method against d (median over problems of each d).

    With ``relative_to`` present, the OTSD panel shows the ratio to that method
    (so "above random search" is a line above 1); OE is already relative.
    """
    set_style()
    labels = method_order(cells["method"])
    colors = method_colors(labels)
    present = [m for m in metrics if m in cells.columns]
    fig, axes = plt.subplots(
        1, len(present), squeeze=False, figsize=(3.4 * len(present) + 0.6, 3.0)
    )
    for k, metric in enumerate(present):
        ax = axes[0, k]
        data = cells[["problem", "dim", "method", metric]].copy()
        ylabel = METRIC_LABELS.get(metric, metric)
        if metric == "otsd_norm" and relative_to in set(data["method"]):
            ref = data[data["method"] == relative_to].set_index("problem")[metric]
            data[metric] = data[metric] / data["problem"].map(ref)
            ylabel = f"OTSD / OTSD({relative_to})"
            ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        agg = data.groupby(["method", "dim"])[metric].median().reset_index()
        for m in labels:
            g = agg[agg["method"] == m].sort_values("dim")
            ax.plot(g["dim"], g[metric], color=colors[m], marker="o", ms=4, lw=1.4)
        ax.set_xscale("log")
        dims = sorted(agg["dim"].unique())
        ax.set_xticks(dims, [str(d) for d in dims])
        ax.minorticks_off()
        ax.set_xlabel("dimension d")
        ax.set_ylabel(ylabel)
    _legend(fig, colors, labels)
    fig.tight_layout()
    return save_figure(fig, png_path, inputs, config_section)


def facet_grid(n: int, max_cols: int = 4) -> tuple[int, int]:
    """Rows and columns for ``n`` facets."""
    cols = min(max(n, 1), max_cols)
    return math.ceil(max(n, 1) / cols), cols
