"""GitHub-Markdown tables of result frames: the one writer of both papers' claims tables.

No dependency on ``tabulate``: floats get 3 significant digits, a non-finite float the
``missing`` text, and ``|`` inside a cell is escaped so a note cannot break the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd


def markdown_cell(value: Any, missing: str = "") -> str:
    """One table cell: 3 significant digits for floats, ``missing`` for NaN / inf."""
    if isinstance(value, float | np.floating):
        return missing if not np.isfinite(value) else f"{value:.3g}"
    return str(value).replace("|", "\\|")


def markdown_table(
    df: pd.DataFrame, columns: Sequence[str] | None = None, missing: str = ""
) -> str:
    """``df`` (optionally only ``columns``, in that order) as a Markdown table with a newline."""
    cols = list(columns) if columns is not None else list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += [
        "| " + " | ".join(markdown_cell(v, missing) for v in row) + " |"
        for row in df[cols].itertuples(index=False)
    ]
    return "\n".join(lines) + "\n"
