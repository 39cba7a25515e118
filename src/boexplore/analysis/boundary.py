"""Share of BO points on the box boundary, per method (the TS maximiser check of issue 27).

A gradient-polished maximiser of a sample path stops on faces of [0, 1]^d far
more often than a maximiser over a candidate set; boundary points are far apart,
so the share explains part of "TS over-explores in high d". Only BO points count
(the initial design is excluded).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

COLUMNS = ["method", "subset", "n_points", "boundary_share", "coord_share"]


def boundary_share(trace: pd.DataFrame, tol: float = 1e-6) -> tuple[int, float, float]:
    """(BO points, share with ≥ 1 coordinate within ``tol`` of 0 or 1, mean share of such coordinates)."""
    xcols = sorted(
        (c for c in trace.columns if re.fullmatch(r"x_\d+", c)), key=lambda c: int(c[2:])
    )
    rows = trace[~trace["is_initial"].astype(bool)] if "is_initial" in trace.columns else trace
    if rows.empty or not xcols:
        return (0, np.nan, np.nan)
    X = rows[xcols].to_numpy(float)
    on = (X <= tol) | (X >= 1.0 - tol)
    return (int(len(X)), float(on.any(axis=1).mean()), float(on.mean()))


def boundary_table(
    paths: Iterable[str],
    methods: Sequence[str],
    low_d_max: int,
    high_d_min: int,
    tol: float = 1e-6,
    per_problem: bool = False,
) -> pd.DataFrame:
    """Boundary shares per method label and d-range (all, low-d, high-d) from run files.

    Run files are ``…/runs/<problem>/<method>/<chunk>.parquet``; only ``methods`` are read.
    ``per_problem`` adds one row per problem (subset ``problem:<label>``), so shares can be
    compared on the same problems (:func:`share_on`).
    """
    want = set(methods)
    acc: dict[tuple[str, str], list[float]] = {}
    for path in paths:
        parts = str(path).replace("\\", "/").split("/")
        if len(parts) < 2 or parts[-2] not in want:
            continue
        df = pd.read_parquet(path)
        if df.empty:
            continue
        d = int(df["dim"].iloc[0])
        n, share, coord = boundary_share(df, tol)
        if n == 0:
            continue
        subs = (
            ["all"]
            + (["low-d"] if d <= low_d_max else [])
            + (["high-d"] if d >= high_d_min else [])
            + ([f"problem:{parts[-3]}"] if per_problem and len(parts) >= 3 else [])
        )
        for sub in subs:
            a = acc.setdefault((parts[-2], sub), [0.0, 0.0, 0.0])
            a[0] += n
            a[1] += share * n
            a[2] += coord * n
    rows = [
        {
            "method": m,
            "subset": s,
            "n_points": int(a[0]),
            "boundary_share": a[1] / a[0],
            "coord_share": a[2] / a[0],
        }
        for (m, s), a in sorted(acc.items())
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def share_on(
    boundary: pd.DataFrame | None, method: str, problems: Iterable[str] | None = None
) -> tuple[float, float]:
    """(boundary share, coordinate share) of ``method``: over every problem (subset ``all``),
    or pooled over the BO points of ``problems`` (needs ``per_problem`` rows). NaN if absent."""
    if boundary is None or boundary.empty:
        return np.nan, np.nan
    mine = boundary[boundary["method"] == method]
    if problems is None:
        hit = mine[mine["subset"] == "all"]
        if hit.empty:
            return np.nan, np.nan
        return float(hit["boundary_share"].iloc[0]), float(hit["coord_share"].iloc[0])
    mine = mine[mine["subset"].isin([f"problem:{p}" for p in problems])]
    n = mine["n_points"].to_numpy(float)
    if n.sum() == 0:
        return np.nan, np.nan
    share = float((mine["boundary_share"] * n).sum() / n.sum())
    return share, float((mine["coord_share"] * n).sum() / n.sum())
