"""Reading observation files (csv / npy / parquet) for the metrics CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from boexplore.metrics.scoring import x_columns

SUFFIXES: tuple[str, ...] = (".csv", ".npy", ".parquet")


def load_points(path: str | Path, x_columns_arg: list[str] | None = None) -> np.ndarray:
    """Points (T, d) from ``path``; tables use ``x_columns_arg``, else x_0.., else all numeric columns."""
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
    import pandas as pd

    frame = pd.read_csv(p) if suffix == ".csv" else pd.read_parquet(p)
    if x_columns_arg:
        missing = [c for c in x_columns_arg if c not in frame.columns]
        if missing:
            raise ValueError(f"columns {missing} not in {p.name} (has {list(frame.columns)})")
        cols = list(x_columns_arg)
    else:
        cols = x_columns(frame) or [
            c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
        ]
    if not cols:
        raise ValueError(f"{p.name} has no x_0.. columns and no numeric columns")
    non_numeric = [c for c in cols if not pd.api.types.is_numeric_dtype(frame[c])]
    if non_numeric:
        raise ValueError(f"columns {non_numeric} in {p.name} are not numeric")
    return frame[cols].to_numpy(dtype=np.float64)


def _bad_dtype(path: Path, arr: np.ndarray) -> np.ndarray:
    raise ValueError(f"{path.name} holds a non-numeric array (dtype {arr.dtype})")
