"""Figure 6: the exploration taxonomy as Hasse diagrams (one panel per d-subset).

Drawn with plain matplotlib: classes are placed in layers by longest chain
from the top (most explorative at the top), edges are the transitive
reduction of the partial order.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from boexplore.analysis.taxonomy import partial_order
from boexplore.plotting.io import save_figure
from boexplore.plotting.style import method_colors, set_style

SUBSET_TITLES = {"all": "all problems", "low_d": "low d", "high_d": "high d"}


def plot_taxonomy_hasse(
    pairs: pd.DataFrame,
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    config_section: Mapping[str, Any] | None = None,
    metric: str = "otsd_norm",
    subsets: Sequence[str] = ("all", "low_d", "high_d"),
) -> list[Path]:
    """Hasse diagram per subset from the taxonomy pair table (``dominates`` column)."""
    set_style()
    fig, axes = plt.subplots(1, len(subsets), squeeze=False, figsize=(3.3 * len(subsets), 4.2))
    for ax, subset in zip(axes.flat, subsets, strict=True):
        ax.set_axis_off()
        ax.set_title(f"{SUBSET_TITLES.get(subset, subset)} ({metric})")
        sub = (
            pairs[(pairs["subset"] == subset) & (pairs["metric"] == metric)]
            if not pairs.empty
            else pairs
        )
        if sub.empty:
            ax.text(
                0.5,
                0.5,
                "no problems in subset",
                ha="center",
                va="center",
                transform=ax.transAxes,
                color="grey",
            )
            continue
        nodes = sorted(set(sub["a"]) | set(sub["b"]))
        order = partial_order(sub, nodes)
        layers = order.layers()
        n_layers = max(layers) + 1
        pos: dict[int, tuple[float, float]] = {}
        per_row = 4  # wider layers wrap into several rows so labels never overlap
        rows_in_layer = [
            max(1, -(-sum(1 for lv in layers if lv == layer) // per_row))
            for layer in range(n_layers)
        ]
        total_rows = sum(rows_in_layer)
        row0 = 0
        for layer in range(n_layers):
            members = [k for k, lv in enumerate(layers) if lv == layer]
            for i, k in enumerate(members):
                row, col = divmod(i, per_row)
                in_row = min(per_row, len(members) - row * per_row)
                pos[k] = ((col + 1) / (in_row + 1), 1 - (row0 + row + 0.5) / total_rows)
            row0 += rows_in_layer[layer]
        for u, v in order.hasse_edges():
            (x0, y0), (x1, y1) = pos[u], pos[v]
            ax.annotate(
                "",
                xy=(x1, y1 + 0.03),
                xytext=(x0, y0 - 0.03),
                xycoords="axes fraction",
                textcoords="axes fraction",
                arrowprops={"arrowstyle": "-|>", "color": "0.4", "lw": 0.9},
            )
        if not order.hasse_edges():
            ax.text(
                0.5,
                0.02,
                "no significant ordering at this sample size",
                ha="center",
                va="bottom",
                transform=ax.transAxes,
                fontsize=7,
                color="grey",
            )
        colors = method_colors(nodes)
        for k, members in enumerate(order.classes):
            x, y = pos[k]
            label = " ≈ ".join(members)
            ax.text(
                x,
                y,
                label,
                ha="center",
                va="center",
                transform=ax.transAxes,
                fontsize=8,
                color="white" if len(members) == 1 else "black",
                bbox={
                    "boxstyle": "round,pad=0.3",
                    "lw": 0,
                    "fc": colors[members[0]] if len(members) == 1 else "0.85",
                },
            )
    fig.text(
        0.5,
        0.01,
        "arrow: explores more (paired tests over seeds, corrected, "
        "on a clear majority of problems); top = most explorative",
        ha="center",
        fontsize=7,
        color="0.3",
    )
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return save_figure(fig, png_path, inputs, config_section)
