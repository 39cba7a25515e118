"""Diagnostics figures: the monitor's timeline of a run (``boexplore diagnose``, the report)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from boexplore.diagnostics.monitor import BALANCED, OVER, UNDER  # noqa: E402

STATE_COLORS = {OVER: "#d95f02", BALANCED: "#1b9e77", UNDER: "#7570b3"}


def _timeline_axes(ax_x: Axes, ax_y: Axes, tl: pd.DataFrame, over_ratio: float, title: str) -> None:
    t = tl["t"].to_numpy()
    ax_x.plot(t, tl["ratio"], color="black", lw=1.5, label="OTSD / uniform-random median")
    ax_x.plot(
        t,
        tl["under_ratio"],
        color=STATE_COLORS[UNDER],
        ls="--",
        lw=1,
        label="under-exploring below",
    )
    ax_x.axhline(over_ratio, color=STATE_COLORS[OVER], ls="--", lw=1, label="over-exploring above")
    for i, s in enumerate(tl["state"]):
        if isinstance(s, str):
            ax_x.axvspan(t[i] - 0.5, t[i] + 0.5, color=STATE_COLORS[s], alpha=0.18, lw=0)
    n_init = int(tl["is_initial"].sum())
    for ax in (ax_x, ax_y):
        ax.axvline(n_init + 0.5, color="grey", lw=0.8)
        stop = tl.loc[tl["stop"], "t"]
        if len(stop):
            ax.axvline(int(stop.iloc[0]), color="red", lw=1.5, ls=":")
    ax_x.set_ylabel("OTSD ratio to random")
    ax_x.set_title(title, fontsize=9)
    ax_y.plot(t, tl["best"], color="black", lw=1.5)
    ax_y.set_ylabel("incumbent")
    ax_y.set_xlabel("evaluations t (grey: end of initial design, red: stop rule)")


def plot_timeline(timeline: pd.DataFrame, over_ratio: float = 1.0, title: str = "") -> Figure:
    """Two panels: the run's OTSD ratio with the monitor's states, and its incumbent."""
    fig, (a, b) = plt.subplots(2, 1, figsize=(6.5, 5.0), sharex=True, constrained_layout=True)
    _timeline_axes(a, b, timeline, over_ratio, title)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c, alpha=0.4) for c in STATE_COLORS.values()]
    a.legend(handles + a.get_lines()[:1], [*STATE_COLORS, "ratio"], fontsize=7, loc="best")
    return fig


def plot_diagnostics(
    timelines: Sequence[tuple[str, pd.DataFrame]],
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike],
    config: Mapping[str, Any] | None = None,
    over_ratio: float = 1.0,
    extra: Mapping[str, Any] | None = None,
) -> list[Path]:
    """One column per example run (timeline on top, incumbent below); PNG + PDF + sidecar."""
    from boexplore.plotting.io import save_figure

    n = max(1, len(timelines))
    fig, axes = plt.subplots(2, n, figsize=(4.2 * n, 5.2), squeeze=False, constrained_layout=True)
    for k, (title, tl) in enumerate(timelines):
        _timeline_axes(axes[0, k], axes[1, k], tl, over_ratio, title)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c, alpha=0.4) for c in STATE_COLORS.values()]
    fig.legend(handles, list(STATE_COLORS), loc="outside upper center", ncol=3, fontsize=8)
    return save_figure(fig, png_path, inputs, config, extra=extra)
