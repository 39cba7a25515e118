"""Shared look of every figure of both papers: one fixed colour per method label.

The registry below is the only colour table in the package. Paper-1 acquisition
functions and paper-2 policies get distinct colours, except where two labels name the
same method family (``ALIASES``: ``ei``/``logei``, paper 2's exact ``gp_ts`` = GP Thompson
sampling ``ts``, ``gp_ucb`` = the explorative ``ucb_high``, ``gp_greedy`` = ``greedy``,
``gp_logei`` = ``logei``), so a reader comparing the papers sees one colour per kind of
method. Unknown labels get a colour derived from a stable hash of the label (not Python's
salted ``hash``).
"""

from __future__ import annotations

import colorsys
import hashlib
from collections.abc import Iterable

import matplotlib

matplotlib.use("Agg")

import seaborn as sns  # noqa: E402

#: Paper 1 (matplotlib tab10/Dark2-like hex codes), most explorative first.
PAPER1_COLORS: dict[str, str] = {
    "random": "#7f7f7f",
    "ucb_high": "#d62728",
    "mes": "#9467bd",
    "jes": "#8c564b",
    "pes": "#e377c2",
    "kg": "#bcbd22",
    "logei": "#1f77b4",
    "pi": "#2ca02c",
    "ucb_low": "#ff7f0e",
    "greedy": "#000000",
    "ts": "#17becf",
    "ts_polish": "#0b6e6a",
    "sobol": "#393b79",
    "gibbon": "#6b6ecf",
    "logpi": "#98df8a",
    "ucb_mid": "#e6550d",
    "ucb": "#c49c94",
}
#: Paper 2's parametric policies (tab20b/tab20c hues not used by paper 1).
PAPER2_COLORS: dict[str, str] = {
    "rr_ts": "#637939",
    "rr_ts_anchor": "#31a354",
    "rr_ts_tp": "#7b4173",
    "nn_warm": "#8c6d31",
    "nn_greedy": "#e7ba52",
    "rr_lfbo_ei": "#843c39",
    "rr_lfbo_pi": "#d6616b",
    "lfbo_ei": "#a55194",
    "lfbo_pi": "#de9ed6",
}
#: Labels that name the same method as another label, and so share its colour.
ALIASES: dict[str, str] = {
    "ei": "logei",
    "gp_ts": "ts",
    "gp_ucb": "ucb_high",
    "gp_greedy": "greedy",
    "gp_logei": "logei",
}
KNOWN_COLORS: dict[str, str] = {
    **PAPER1_COLORS,
    **PAPER2_COLORS,
    **{alias: PAPER1_COLORS[target] for alias, target in ALIASES.items()},
}
#: Legend order: paper 1 most explorative first (``ei`` next to ``logei``), then paper 2.
KNOWN_ORDER: list[str] = [
    *(k for m in PAPER1_COLORS for k in ((m, "ei") if m == "logei" else (m,))),
    *PAPER2_COLORS,
    *(a for a in ALIASES if a != "ei"),
]


def hash_color(label: str) -> str:
    """Deterministic mid-saturation colour from the sha1 of ``label``."""
    h = int(hashlib.sha1(label.encode()).hexdigest()[:8], 16)
    hue = (h % 360) / 360.0
    light = 0.35 + 0.2 * ((h >> 9) % 100) / 100.0
    r, g, b = colorsys.hls_to_rgb(hue, light, 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def _shade(hex_color: str, label: str) -> str:
    """A lighter or darker version of ``hex_color``, chosen by a stable hash of ``label``."""
    h = int(hashlib.sha1(label.encode()).hexdigest()[:8], 16)
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    hue, _, sat = colorsys.rgb_to_hls(r, g, b)
    light = 0.25 + 0.5 * (h % 997) / 997  # spread over dark .. light
    hue = (hue + ((h >> 10) % 11 - 5) * 0.012) % 1.0  # small hue jitter
    r, g, b = colorsys.hls_to_rgb(hue, light, sat)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def label_color(label: str) -> str:
    """Fixed colour for a known label; a shade of its base's colour for a variant label
    such as ``logei_q4`` (longest known prefix before ``_``); else a hash colour."""
    if label in KNOWN_COLORS:
        return KNOWN_COLORS[label]
    bases = [k for k in KNOWN_COLORS if label.startswith(k + "_")]
    if bases:
        return _shade(KNOWN_COLORS[max(bases, key=len)], label)
    return hash_color(label)


def method_colors(labels: Iterable[str]) -> dict[str, str]:
    """Colour per label (see :func:`label_color`); deterministic across runs and figures."""
    return {lab: label_color(lab) for lab in labels}


def method_order(labels: Iterable[str]) -> list[str]:
    """Known labels in paper order first, then the rest alphabetically."""
    labs = sorted(set(labels))
    known = [m for m in KNOWN_ORDER if m in labs]
    return known + [m for m in labs if m not in KNOWN_COLORS]


def set_style(context: str = "paper") -> None:
    """Seaborn theme used by every figure (white grid, readable at column width)."""
    if context not in ("paper", "notebook", "talk", "poster"):
        raise ValueError(f"unknown seaborn context {context!r}")
    sns.set_theme(
        context=context,
        style="whitegrid",
        font_scale=1.0,
        rc={"figure.dpi": 150, "savefig.bbox": "tight", "legend.frameon": False},
    )
