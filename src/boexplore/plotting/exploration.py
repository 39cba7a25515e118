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
#: Why a panel has no curve: the metric has no value at any budget of the problem's runs.
UNDEFINED = {
    "oe_ref_rel": "undefined here: the authors' OE needs\nmore than d = {d} points; the budget\nstops at {n} evaluations",
}


def empty_panel(ax: plt.Axes, metric: str, d: object, n: object) -> None:
    """A panel whose metric has no value: a note saying why instead of an empty axis."""
    note = UNDEFINED.get(metric, "no {label} value at any\nbudget of these runs")
    ax.text(0.5, 0.5, note.format(d=d, n=n, label=METRIC_LABELS.get(metric, metric)),
            ha="center", va="center", transform=ax.transAxes, fontsize=9, color="0.35")  # fmt: skip
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)


def plot_trajectories(
    traj: pd.DataFrame,
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    config_section: Mapping[str, Any] | None = None,
    metrics: tuple[str, ...] = ("otsd_norm", "oe_rel"),
) -> list[Path]:
    """Figure 1: median (line) and bootstrap band per method vs evaluations, per problem; a
    metric undefined on a problem (the authors' OE when the budget never passes d) gets a
    note in its panel, not an empty axis."""
    fig = trajectories_figure(traj, metrics)
    return save_figure(fig, png_path, inputs, config_section)


def trajectories_figure(traj: pd.DataFrame, metrics: tuple[str, ...]) -> plt.Figure:
    """The figure of :func:`plot_trajectories`, not yet saved."""
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
        mine = traj[traj["problem"] == problem]
        d, n_max = int(mine["dim"].iloc[0]), int(mine["n"].max())
        for i, metric in enumerate(present):
            ax = axes[block * len(present) + i, col]
            sub = mine[mine["metric"] == metric]
            sub = sub[np.isfinite(sub["median"].to_numpy(float))]
            if i == 0:
                ax.set_title(f"{problem} (d={d})")
            if col == 0:
                ax.set_ylabel(METRIC_LABELS.get(metric, metric))
            if sub.empty:
                empty_panel(ax, metric, d, n_max)
                continue
            for m in labels:
                g = sub[sub["method"] == m].sort_values("n")
                if g.empty:
                    continue
                ax.plot(g["n"], g["median"], color=colors[m], lw=1.4)
                ax.fill_between(
                    g["n"], g["ci_low"], g["ci_high"], color=colors[m], alpha=0.15, lw=0
                )
            if i == len(present) - 1:
                ax.set_xlabel("evaluations")
    for k in range(len(problems), blocks * ncol):
        for i in range(len(present)):
            axes[(k // ncol) * len(present) + i, k % ncol].axis("off")
    _legend(fig, colors, labels)
    fig.tight_layout()
    return fig


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
    without a value (the authors' OE at n <= d) are left out, and their dimensions with them.
    The legend sits right of the axes, starting at their top edge, so it never covers the
    title."""
    fig = otsd_vs_oe_figure(cells, correlation, x, y)
    return save_figure(fig, png_path, inputs, config_section)


def otsd_vs_oe_figure(
    cells: pd.DataFrame, correlation: Mapping[str, float], x: str = "otsd_norm", y: str = "oe_rel"
) -> plt.Figure:
    """The figure of :func:`plot_otsd_vs_oe`, not yet saved."""
    set_style()
    cells = cells[np.isfinite(cells[x].to_numpy(float)) & np.isfinite(cells[y].to_numpy(float))]
    labels = method_order(cells["method"])
    colors = method_colors(labels)
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
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
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8,
              ncol=2 if len(handles) > 12 else 1, borderaxespad=0.0)  # fmt: skip
    fig.tight_layout()
    return fig


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
