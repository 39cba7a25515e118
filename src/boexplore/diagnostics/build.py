"""Build the monitor's reference table from a study's per-prefix metrics (needs pandas).

Input: the workflow's metrics table (one row per run prefix: problem, dim, method, seed,
n, otsd_norm). Only ``problems`` (the tune half) and ``methods`` (the reference methods)
are used. Output: one row per (d, t) with the uniform-random curves of
:func:`boexplore.diagnostics.references.uniform_otsd_curves` and the quantiles of the
reference runs' ratio normalised OTSD / uniform median (columns
:data:`boexplore.diagnostics.references.COLUMNS`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from boexplore.diagnostics.references import (
    COLUMNS,
    QUANTILES,
    RATIO_COLUMNS,
    UNIFORM_COLUMNS,
    uniform_otsd_curves,
)


def build_references(
    metrics: pd.DataFrame, problems: Sequence[str], methods: Sequence[str]
) -> pd.DataFrame:
    """Reference table (rounded to 6 significant digits so rebuilds compare exactly)."""
    m = metrics[metrics["problem"].isin(list(problems)) & metrics["method"].isin(list(methods))]
    if m.empty:
        raise ValueError("build_references: no rows of the given problems and methods")
    rows: list[dict[str, float]] = []
    for d, g in m.groupby("dim", sort=True):
        t_max = int(g["n"].max())
        curves = uniform_otsd_curves(int(d), t_max)
        with np.errstate(invalid="ignore", divide="ignore"):  # t = 1: no tour yet (0 / 0)
            ratio = g["otsd_norm"].to_numpy(float) / curves[0, g["n"].to_numpy(int) - 1]
        g = g.assign(ratio=ratio)
        for t, gt in g.groupby("n", sort=True):
            if t < 2:
                continue
            qs = np.quantile(gt["ratio"].to_numpy(float), QUANTILES)
            row = {"d": int(d), "t": int(t)}
            row.update({c: curves[k, t - 1] for k, c in enumerate(UNIFORM_COLUMNS)})
            row.update(dict(zip(RATIO_COLUMNS, qs, strict=True)))
            row["n_runs"] = len(gt)
            rows.append(row)
    out = pd.DataFrame(rows, columns=list(COLUMNS))
    float_cols = [*UNIFORM_COLUMNS, *RATIO_COLUMNS]
    out[float_cols] = out[float_cols].map(lambda v: float(f"{v:.6g}"))
    return out


def write_references(table: pd.DataFrame, path: str) -> None:
    """Write the table as CSV (atomic)."""
    from boexplore.io import atomic_write_text

    atomic_write_text(table.to_csv(index=False), path)
