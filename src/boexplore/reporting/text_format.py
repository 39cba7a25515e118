"""Number and verdict formatting shared by the generated text of README.md and docs/*.md."""

from __future__ import annotations

import math

import pandas as pd

MISSING = "*(not generated yet: {what} is missing; see `python -m boexplore.reporting.results_text --help`)*"


def num(x: float) -> str:
    """Three significant digits, ``–`` for a missing value (the precision of every table)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "–"
    return "–" if math.isnan(x) else f"{x:.3g}"


def interval(v: float, lo: float, hi: float) -> str:
    """``0.72 [0.589, 0.815]``."""
    return f"{num(v)} [{num(lo)}, {num(hi)}]"


def verdict_text(verdict: str) -> str:
    """Decisive verdicts in bold, the rest as written by the analysis."""
    v = str(verdict)
    return f"**{v}**" if v in ("reproduced", "not reproduced") else v


def cell(text: str) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def has_value(row: pd.Series, key: str) -> bool:
    """Whether a table row holds a non-empty value under ``key``."""
    return key in row.index and not pd.isna(row[key]) and str(row[key]) != ""
