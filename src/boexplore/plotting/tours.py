"""Figure 7: how far the OTSD insertion tour is from a near-optimal tour."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from boexplore.plotting.io import save_figure
from boexplore.plotting.style import set_style


def plot_tour_quality(
    tours: pd.DataFrame,
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    config_section: Mapping[str, Any] | None = None,
) -> list[Path]:
    """ECDFs of heuristic/best and heuristic/lower-bound ratios, one line per prefix size."""
    set_style()
    fig, axes = plt.subplots(1, 2, figsize=(7.0, 2.9), sharey=True)
    panels = (
        ("ratio_best", "OTSD / best tour (Held–Karp or 2-opt+Or-opt)"),
        ("ratio_lb", "OTSD / lower bound"),
    )
    sizes = sorted(tours["n"].unique()) if not tours.empty else []
    cmap = plt.get_cmap("viridis")
    for ax, (col, xlabel) in zip(axes, panels, strict=True):
        ax.set_xlabel(xlabel)
        if not sizes:
            ax.text(0.5, 0.5, "no traces", ha="center", va="center", transform=ax.transAxes)
            continue
        for i, n in enumerate(sizes):
            v = np.sort(tours.loc[tours["n"] == n, col].to_numpy(float))
            v = v[np.isfinite(v)]
            if v.size == 0:
                continue
            ax.step(
                v,
                np.arange(1, v.size + 1) / v.size,
                where="post",
                color=cmap(i / max(len(sizes) - 1, 1)),
                label=f"T = {n}",
            )
        ax.axvline(1.0, color="grey", lw=0.8, ls="--")
    axes[0].set_ylabel("fraction of traces")
    if sizes:
        med = tours["ratio_best"].median()
        axes[0].set_title(f"median ratio {med:.3f} over {len(tours)} prefixes", fontsize=9)
        axes[1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), title="prefix")
    fig.tight_layout()
    return save_figure(fig, png_path, inputs, config_section)
