"""Save a figure as PNG + PDF with its provenance sidecar."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from boexplore.io import atomic_write, write_sidecar


def save_figure(
    fig: Figure,
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike],
    config_section: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> list[Path]:
    """Write ``<name>.png``, ``<name>.pdf`` and ``<name>.json``; close the figure."""
    png = Path(png_path)
    if png.suffix != ".png":
        raise ValueError(f"figure path must end in .png, got {png}")
    pdf = png.with_suffix(".pdf")
    for path in (png, pdf):
        atomic_write(fig, path)
    plt.close(fig)
    side = write_sidecar(png, list(inputs), config_section, outputs=[png, pdf], extra=extra)
    return [png, pdf, side]
