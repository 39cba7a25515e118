"""Shared look of all paper-1 figures: one fixed colour per method label.

Known labels get fixed colours from a qualitative palette (so "random" is the
same grey in every figure and every run); unknown labels get a colour derived
from a stable hash of the label (not Python's salted ``hash``).
"""

from __future__ import annotations

import colorsys
import hashlib
from collections.abc import Iterable

import matplotlib

matplotlib.use("Agg")

import seaborn as sns  # noqa: E402

#: Fixed colours (matplotlib tab10/Dark2-like hex codes), most explorative first.
KNOWN_COLORS: dict[str, str] = {
    "random": "#7f7f7f",
    "ucb_high": "#d62728",
    "mes": "#9467bd",
    "jes": "#8c564b",
    "pes": "#e377c2",
    "kg": "#bcbd22",
    "logei": "#1f77b4",
    "ei": "#1f77b4",
    "pi": "#2ca02c",
    "ucb_low": "#ff7f0e",
    "greedy": "#000000",
    "ts": "#17becf",
}
KNOWN_ORDER: list[str] = list(KNOWN_COLORS)


def hash_color(label: str) -> str:
    """Deterministic mid-saturation colour from the sha1 of ``label``."""
    h = int(hashlib.sha1(label.encode()).hexdigest()[:8], 16)
    hue = (h % 360) / 360.0
    light = 0.35 + 0.2 * ((h >> 9) % 100) / 100.0
    r, g, b = colorsys.hls_to_rgb(hue, light, 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def method_colors(labels: Iterable[str]) -> dict[str, str]:
    """Colour per label: fixed for known labels, stable hash colour otherwise."""
    return {lab: KNOWN_COLORS.get(lab, hash_color(lab)) for lab in labels}


def method_order(labels: Iterable[str]) -> list[str]:
    """Known labels in paper order first, then the rest alphabetically."""
    labs = sorted(set(labels))
    known = [m for m in KNOWN_ORDER if m in labs]
    return known + [m for m in labs if m not in KNOWN_COLORS]


def set_style(context: str = "paper") -> None:
    """Seaborn theme used by every figure (white grid, readable at column width)."""
    if context not in ("paper", "notebook", "talk", "poster"):
        raise ValueError(f"unknown seaborn context {context!r}")
    sns.set_theme(context=context, style="whitegrid", font_scale=1.0,
                  rc={"figure.dpi": 150, "savefig.bbox": "tight", "legend.frameon": False})
