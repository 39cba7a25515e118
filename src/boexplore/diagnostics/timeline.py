"""Per-step diagnosis of a finished trace (``boexplore diagnose``; needs pandas).

Replays a trace through the monitor's state rule and the stop rule and returns one row
per evaluation: value, incumbent, normalised OTSD, its ratio to uniform random, the
under-exploring threshold, raw and smoothed state, whether the stop rule's condition
holds and the stop point it would have chosen (its first firing).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from boexplore.diagnostics.monitor import MonitorThresholds, assess
from boexplore.diagnostics.references import References, load_references
from boexplore.diagnostics.stopping import StopRule
from boexplore.metrics.tracker import ExplorationTracker

TIMELINE_COLUMNS = (
    "t", "is_initial", "y", "best", "otsd_norm", "ratio", "under_ratio", "u_median",
    "raw_state", "state", "stop_fires", "stop",
)  # fmt: skip


def timeline_from_history(
    otsd: np.ndarray,
    otsd_norm: np.ndarray,
    y: np.ndarray,
    d: int,
    n_init: int,
    *,
    thresholds: MonitorThresholds | None = None,
    stop_rule: StopRule | None = None,
    references: References | None = None,
) -> pd.DataFrame:
    """Timeline from per-prefix OTSD, normalised OTSD and values ``y`` (maximisation)."""
    yy = np.asarray(y, dtype=np.float64)
    T = yy.shape[0]
    th = thresholds or MonitorThresholds()
    rule = stop_rule or StopRule()
    a = assess(otsd_norm, d, n_init, th, references or load_references())
    fires = rule.conditions(otsd, yy, d, n_init)
    t = np.arange(1, T + 1)
    first = int(np.argmax(fires)) + 1 if fires.any() else -1
    best = np.fmax.accumulate(np.where(np.isfinite(yy), yy, np.nan))
    df = pd.DataFrame(
        {
            "t": t,
            "is_initial": t <= n_init,
            "y": yy,
            "best": best,
            "otsd_norm": np.asarray(otsd_norm, float),
            "ratio": a["ratio"],
            "under_ratio": a["under_ratio"],
            "u_median": a["u_median"],
            "raw_state": a["raw_state"],
            "state": a["state"],
            "stop_fires": fires,
            "stop": t == first,
        }
    )
    return df[list(TIMELINE_COLUMNS)]


def diagnose_points(
    X: np.ndarray,
    y: np.ndarray | None,
    n_init: int,
    *,
    thresholds: MonitorThresholds | None = None,
    stop_rule: StopRule | None = None,
    references: References | None = None,
) -> pd.DataFrame:
    """Timeline of points ``X`` (T, d) in the unit cube and their values ``y``."""
    X = np.asarray(X, dtype=np.float64)
    T, d = X.shape
    tracker = ExplorationTracker(d).update(X)
    yy = np.full(T, np.nan) if y is None else np.asarray(y, dtype=np.float64)
    return timeline_from_history(
        tracker.otsd_history,
        tracker.otsd_normalized_history,
        yy,
        d,
        n_init,
        thresholds=thresholds,
        stop_rule=stop_rule,
        references=references,
    )


def stop_at(timeline: pd.DataFrame) -> int | None:
    """Evaluation at which the stop rule would have stopped the run (None: never)."""
    hit = timeline.loc[timeline["stop"], "t"]
    return int(hit.iloc[0]) if len(hit) else None
