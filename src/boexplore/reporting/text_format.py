"""Number and verdict formatting shared by the generated text of README.md and docs/*.md."""

from __future__ import annotations

import math
import re

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


#: Issue references a reader cannot open (the tracker is not public): "(issue 42)", "in issue
#: 42", "(issue 27; ...)", "(..., issue 27)".
_ISSUE_REFS = (
    (re.compile(r"\s*\(issues? \d+(?:,\s*\d+)*\)"), ""),
    (re.compile(r"\(issues? \d+(?:,\s*\d+)*[;,]\s*"), "("),
    (re.compile(r",\s*issues? \d+\)"), ")"),
    (re.compile(r" in issue \d+"), ""),
)


def without_issue_refs(text: str) -> str:
    """``text`` without the issue references a reader cannot open."""
    for pattern, repl in _ISSUE_REFS:
        text = pattern.sub(repl, text)
    return text


def for_readers(text: str) -> str:
    """A record's note for a reader: no issue references, and "not stated" (a value the
    record lacks) said as what it is: not recorded at the time."""
    return without_issue_refs(text).replace("not stated", "not recorded at the time")
