"""score_trace: per-prefix exploration metrics of one BO trace (docs/interfaces.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from boexplore.metrics.bounds import BOUND_KEYS, LowerBoundAccumulator
from boexplore.metrics.distances import distance_rows
from boexplore.metrics.entropy import EntropyAccumulator, max_k
from boexplore.metrics.otsd import psi
from boexplore.metrics.tour import TourBuilder
from boexplore.metrics.validation import as_points

SCORE_COLUMNS: tuple[str, ...] = (
    "problem", "dim", "method", "seed", "n", "iteration", "otsd", "otsd_norm", "psi",
    "otsd_lb_mst", "otsd_lb_diam", "otsd_lb_nn", "otsd_lb", "oe_kl", "oe_ref",
    "best_so_far", "regret", "oe_kl_all",
)  # fmt: skip
if TYPE_CHECKING:  # pandas is only needed for whole traces (the `pipeline` extra)
    import pandas as pd

_ID_COLUMNS = ("problem", "dim", "method", "seed")
_X_COLUMN = re.compile(r"^x_(\d+)$")


def x_columns(frame: pd.DataFrame | Iterable[str]) -> list[str]:
    """Names ``x_0 .. x_{d-1}`` in ``frame`` (a table or its column names), sorted by index.

    ValueError when the indices are not contiguous.
    """
    names = frame.columns if hasattr(frame, "columns") else frame
    found = sorted((int(m.group(1)), c) for c in names if (m := _X_COLUMN.match(str(c))))
    if not found:
        return []
    idx = [i for i, _ in found]
    if idx != list(range(len(idx))):
        raise ValueError(
            f"x columns must be x_0 .. x_{{d-1}} without gaps, found {[c for _, c in found]}"
        )
    return [c for _, c in found]


def metrics_table(X: np.ndarray) -> dict[str, np.ndarray]:
    """All per-prefix metric columns for validated unit-cube points ``X`` (T, d), one pass."""
    T, d = X.shape
    tour = TourBuilder(d, capacity=T)
    oe = EntropyAccumulator(d, capacity=T, k_max=max_k(T))
    lb = LowerBoundAccumulator(capacity=T)
    cols = ("otsd", "oe_kl", "oe_ref", "oe_kl_all", *(f"lb_{k}" for k in BOUND_KEYS))
    acc = {c: np.empty(T) for c in cols}
    for t, row in enumerate(distance_rows(X)):
        acc["otsd"][t] = tour.add(row)
        oe.add(row)
        lb.add(row)
        acc["oe_kl"][t] = oe.value("kl")
        acc["oe_ref"][t] = oe.value("reference")
        acc["oe_kl_all"][t] = oe.value("kl", min_points=1)
        for k, v in lb.values().items():
            acc[f"lb_{k}"][t] = v
    p = np.asarray(psi(d, np.arange(1, T + 1)), dtype=np.float64)
    return {
        "n": np.arange(1, T + 1),
        "otsd": acc["otsd"],
        "otsd_norm": acc["otsd"] / p,
        "psi": p,
        "otsd_lb_mst": acc["lb_mst"],
        "otsd_lb_diam": acc["lb_diam"],
        "otsd_lb_nn": acc["lb_nn"],
        "otsd_lb": acc["lb_lb"],
        "oe_kl": acc["oe_kl"],
        "oe_ref": acc["oe_ref"],
        # Textbook OE without the N >= d cut-off (defined once N > k distinct points):
        # raw values are not comparable across d, but relative to uniform points of the
        # same (d, N) they are, which lets high-d runs with budgets below d report OE.
        "oe_kl_all": acc["oe_kl_all"],
    }


def score_trace(trace: pd.DataFrame) -> pd.DataFrame:
    """One row per prefix size n = 1..T with the columns of ``SCORE_COLUMNS``.

    ``trace`` is a BO trace (docs/interfaces.md): rows are sorted by ``eval_index``
    and the points are the ``x_0 .. x_{d-1}`` columns (unit cube), initial design included.
    """
    import pandas as pd

    if not isinstance(trace, pd.DataFrame):
        raise ValueError(f"score_trace expects a pandas DataFrame, got {type(trace).__name__}")
    if len(trace) == 0:
        raise ValueError("score_trace: the trace has no rows (T = 0)")
    cols = x_columns(trace)
    if not cols:
        raise ValueError("score_trace: the trace has no x_0 .. x_{d-1} columns")
    required = ("eval_index", "iteration", *_ID_COLUMNS)
    missing = [c for c in required if c not in trace.columns]
    if missing:
        raise ValueError(f"score_trace: trace is missing columns {missing}")
    if trace["eval_index"].duplicated().any():
        raise ValueError("score_trace: duplicate eval_index values")
    dims = pd.unique(trace["dim"])
    if len(dims) != 1 or dims[0] != len(cols):
        raise ValueError(
            f"score_trace: dim column {list(dims)} does not match {len(cols)} x columns"
        )
    tr = trace.sort_values("eval_index", kind="stable").reset_index(drop=True)
    X = as_points(tr[cols].to_numpy(dtype=np.float64), name="trace x columns")
    T = X.shape[0]
    out: dict[str, object] = {}
    for c in _ID_COLUMNS:
        out[c] = tr[c].to_numpy()
    out.update(metrics_table(X))
    out["iteration"] = tr["iteration"].to_numpy()
    for c in ("best_so_far", "regret"):
        out[c] = tr[c].to_numpy(dtype=np.float64) if c in tr.columns else np.full(T, np.nan)
    return pd.DataFrame({c: out[c] for c in SCORE_COLUMNS})
