"""Workflow-level figures: OTSD against its bounds, and time per BO iteration."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def _colors(labels: Sequence[str]) -> dict[str, tuple]:
    """Fixed colour per method (shared style module when present)."""
    try:
        from boexplore.plotting.style import method_colors

        return dict(method_colors(list(labels)))
    except ImportError:  # pragma: no cover - style module missing
        cmap = plt.get_cmap("tab20")
        return {m: cmap(i % 20) for i, m in enumerate(sorted(labels))}


def _save(fig, png: str | Path, pdf: str | Path | None) -> None:
    from boexplore.io import atomic_write

    atomic_write(fig, png, dpi=150)
    if pdf:
        atomic_write(fig, pdf)
    plt.close(fig)


def plot_otsd_bounds(metrics: pd.DataFrame, png: str | Path, pdf: str | Path | None = None) -> None:
    """Per problem: median OTSD per method between the best lower bound and Psi (log scale)."""
    problems = sorted(
        metrics["problem"].unique(),
        key=lambda p: (metrics.loc[metrics.problem == p, "dim"].iloc[0], p),
    )
    methods = sorted(metrics["method"].unique())
    colors = _colors(methods)
    ncol = min(3, len(problems))
    nrow = math.ceil(len(problems) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.2 * nrow), squeeze=False)
    for ax, problem in zip(axes.flat, problems, strict=False):
        sub = metrics[(metrics.problem == problem) & (metrics.n >= 2)]
        psi = sub.groupby("n")["psi"].first()
        lb = sub.groupby("n")["otsd_lb"].agg(["min", "max"])
        ax.plot(psi.index, psi.values, "k--", lw=1.2, label=r"upper bound $\Psi(d,n)$")
        ax.fill_between(
            lb.index, lb["min"], lb["max"], color="0.75", alpha=0.7, label="lower bounds (range)"
        )
        for method in methods:
            med = sub[sub.method == method].groupby("n")["otsd"].median()
            if len(med):
                ax.plot(med.index, med.values, color=colors[method], lw=1.3, label=method)
        ax.set_yscale("log")
        ax.set_title(f"{problem} (d={int(sub['dim'].iloc[0])})", fontsize=10)
        ax.set_xlabel("evaluations n")
        ax.set_ylabel("tour length")
        ax.grid(alpha=0.3, which="both", lw=0.4)
    for ax in list(axes.flat)[len(problems) :]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False, fontsize=8
    )
    fig.suptitle("OTSD (median over seeds) inside its bounds", y=1.02)
    fig.tight_layout()
    _save(fig, png, pdf)


def plot_run_timings(summary: pd.DataFrame, png: str | Path, pdf: str | Path | None = None) -> None:
    """Mean seconds per BO iteration (GP fit + acquisition) per method and dimension."""
    s = summary.copy()
    s["sec_per_iter"] = s["fit_seconds_mean"].fillna(0) + s["acq_seconds_mean"].fillna(0)
    table = s.groupby(["method", "dim"])["sec_per_iter"].median().unstack("dim")
    methods = list(table.index)
    colors = _colors(methods)
    dims = list(table.columns)
    width = 0.8 / max(1, len(dims))
    # width capped at 12 in (1,800 px at 150 dpi) so large configs stay readable in the report
    fig, ax = plt.subplots(
        figsize=(min(12, max(6, 0.55 * len(methods) * max(1, len(dims)) ** 0.5)), 3.6)
    )
    x = np.arange(len(methods))
    shades = np.linspace(0.45, 1.0, len(dims))
    for j, dim in enumerate(dims):
        vals = table[dim].to_numpy()
        ax.bar(
            x + (j - (len(dims) - 1) / 2) * width,
            vals,
            width=width,
            color=[colors[m] for m in methods],
            alpha=float(shades[j]),
            edgecolor="k",
            lw=0.3,
            label=f"d={dim}",
        )
    ax.set_xticks(x, methods, rotation=45, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("seconds / iteration (median)")
    ax.set_title("Cost per BO iteration (bars: dimensions, light to dark)")
    ax.legend(fontsize=8, ncol=min(4, len(dims)), frameon=False)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    _save(fig, png, pdf)
