"""Scatter figure: reference runs (normalised OTSD vs oe_rel) with the user's traces on top."""

from __future__ import annotations

from pathlib import Path

from boexplore.compare.core import Placement
from boexplore.io import atomic_write


def placement_figure(placement: Placement, title: str, path: str | Path) -> Path:
    """Write the comparison scatter to ``path`` atomically (format from the suffix); return it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ref = placement.reference
    methods = sorted(ref["method"].unique())
    cmap = plt.get_cmap("tab20", max(len(methods), 1))
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    for i, m in enumerate(methods):
        pts = ref[ref["method"] == m]
        ax.scatter(pts["otsd_norm"], pts["oe_rel"], s=14, alpha=0.45, color=cmap(i))
        med = pts[["otsd_norm", "oe_rel"]].median()
        ax.scatter(med["otsd_norm"], med["oe_rel"], s=40, color=cmap(i), edgecolor="k", lw=0.5)
        ax.annotate(m, (med["otsd_norm"], med["oe_rel"]), fontsize=7, xytext=(3, 3),
                    textcoords="offset points")  # fmt: skip
    user = placement.user
    ax.scatter(user["otsd_norm"], user["oe_rel"], marker="*", s=160, color="crimson",
               edgecolor="k", lw=0.6, label="your traces", zorder=5)  # fmt: skip
    ax.axhline(0.0, color="0.6", lw=0.8, ls="--")
    ax.set(
        xlabel="normalised OTSD (more = more exploration)",
        ylabel="OE − OE(uniform)  [oe_rel]",
        title=f"{title}, n = {placement.n}",
    )
    ax.title.set_fontsize(10)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    try:
        return atomic_write(fig, Path(path), dpi=150)
    finally:
        plt.close(fig)
