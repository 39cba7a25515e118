"""Reading observation files (csv / npy / parquet) and writing metric tables for the metrics CLI.

The base install has numpy and scipy only, so ``.npy`` and ``.csv`` work without pandas
(pandas is used for csv when it is installed; ``.parquet`` needs the ``pipeline`` extra).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

import numpy as np

from boexplore.metrics.scoring import x_columns

SUFFIXES: tuple[str, ...] = (".csv", ".npy", ".parquet")


def load_points(path: str | Path, x_columns_arg: list[str] | None = None) -> np.ndarray:
    """Points (T, d) from ``path``.

    Tables use ``x_columns_arg``, else x_0.., else the numeric columns when none of them is
    named like a value (``y``, ``regret``, ...; then a ValueError asks for ``--columns``).
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such file: {p}")
    suffix = p.suffix.lower()
    if suffix == ".npy":
        if x_columns_arg:
            raise ValueError("--x-columns applies to csv/parquet files, not .npy")
        arr = np.load(p, allow_pickle=False)
        return np.asarray(arr, dtype=np.float64) if arr.dtype.kind in "biuf" else _bad_dtype(p, arr)
    if suffix not in (".csv", ".parquet"):
        raise ValueError(f"unsupported file type {suffix!r}; expected one of {SUFFIXES}")
    try:
        columns = _read_table(p)
    except (ValueError, UnicodeDecodeError) as exc:  # empty, binary, malformed
        raise ValueError(f"{p}: cannot read as a {suffix[1:]} table ({exc})") from None
    if x_columns_arg:
        missing = [c for c in x_columns_arg if c not in columns]
        if missing:
            raise ValueError(f"columns {missing} not in {p.name} (has {list(columns)})")
        cols = list(x_columns_arg)
    else:
        cols = x_columns(columns) or _unambiguous_columns(p, columns)
    non_numeric = [c for c in cols if columns[c] is None]
    if non_numeric:
        raise ValueError(f"columns {non_numeric} in {p.name} are not numeric")
    return np.column_stack([columns[c] for c in cols]).astype(np.float64, copy=False)


#: Column names of values, not coordinates (trace columns; common objective names).
NOT_COORDINATES: frozenset[str] = frozenset(
    {"y", "f", "fx", "value", "objective", "target", "best_so_far", "regret", "seed", "dim",
     "iteration", "eval_index", "batch_index", "is_initial", "fit_seconds", "acq_seconds",
     "tr_length", "raasp_n_perturbed", "time", "step", "index"}
)  # fmt: skip


def _unambiguous_columns(path: Path, columns: Mapping[str, np.ndarray | None]) -> list[str]:
    """The numeric columns, when none has a value/bookkeeping name (``y``, ``regret``...).

    A table without ``x_*`` columns is only read as points when no numeric column could be
    anything but a coordinate: an objective column ``y`` silently taken as a coordinate
    would change every metric. Non-numeric columns (labels) are ignored.
    """
    numeric = [c for c, v in columns.items() if v is not None]
    if not numeric:
        raise ValueError(f"{path}: no x_0.. columns and no numeric columns")
    odd = [c for c in numeric if c.strip().lower() in NOT_COORDINATES]
    if odd:
        raise ValueError(
            f"{path}: no x_0.. columns, and numeric column(s) {', '.join(odd)} look like "
            f"values, not coordinates; name the coordinate columns with --columns "
            f"(numeric columns: {', '.join(numeric)})"
        )
    return numeric


def _read_table(path: Path) -> dict[str, np.ndarray | None]:
    """Column name -> float array, or None for a non-numeric column (pandas when installed)."""
    try:
        import pandas as pd
    except ImportError:
        if path.suffix.lower() == ".parquet":
            raise ImportError(
                "reading .parquet needs pandas and pyarrow: pip install 'boexplore[pipeline]'"
            ) from None
        return _read_csv_plain(path)
    frame = pd.read_csv(path) if path.suffix.lower() == ".csv" else pd.read_parquet(path)
    return {
        str(c): frame[c].to_numpy(dtype=np.float64)
        if pd.api.types.is_numeric_dtype(frame[c])
        else None
        for c in frame.columns
    }


def _read_csv_plain(path: Path) -> dict[str, np.ndarray | None]:
    """A header-first csv with the standard library: numeric when every cell parses as float."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise ValueError(f"{path.name} is empty")
    header, body = rows[0], [r for r in rows[1:] if r]
    if any(len(r) != len(header) for r in body):
        raise ValueError(f"{path.name}: every row must have {len(header)} fields")
    out: dict[str, np.ndarray | None] = {}
    for j, name in enumerate(header):
        try:
            out[name] = np.array([_cell(r[j]) for r in body], dtype=np.float64)
        except ValueError:
            out[name] = None
    return out


def _cell(text: str) -> float:
    text = text.strip()
    return math.nan if text in ("", "nan", "NaN", "NA") else float(text)


def write_csv(table: Mapping[str, np.ndarray], fh: TextIO) -> None:
    """Write equal-length columns as csv (floats as shortest repr, NaN empty, like pandas)."""
    names = list(table)
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow(names)
    columns = [np.asarray(table[n]) for n in names]
    for i in range(len(columns[0]) if columns else 0):
        writer.writerow([_format(col[i]) for col in columns])


def _format(value: object) -> str:
    if isinstance(value, float | np.floating):
        return "" if math.isnan(value) else repr(float(value))
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


def _bad_dtype(path: Path, arr: np.ndarray) -> np.ndarray:
    raise ValueError(f"{path.name} holds a non-numeric array (dtype {arr.dtype})")
