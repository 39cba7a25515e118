"""An Optuna study or Ax experiment as a trace for ``boexplore diagnose`` (needs pandas).

The counted trials (:class:`~boexplore.integrations.common.StudyPoints`) become rows
``trial, x_0 .. x_{d-1}, y``; the summary line says what was counted, what was left out,
and whether the metrics the live helper stored agree with the recomputed ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from boexplore.integrations.common import ATTR_OE, ATTR_OTSD, ATTR_OTSD_NORM, StudyPoints
from boexplore.metrics.tracker import ExplorationTracker

#: Stored and recomputed metrics agree when they differ by at most this (relative).
AGREE_RTOL = 1e-9


def stored_agreement(points: StudyPoints) -> str:
    """One sentence comparing the stored ``boexplore_*`` values with recomputed metrics."""
    have = np.isfinite(points.stored[ATTR_OTSD])
    if not have.any():
        return "no stored boexplore_* values (the study ran without the live helper)"
    tracker = ExplorationTracker(points.d).update(points.X)
    recomputed = {
        ATTR_OTSD: tracker.otsd_history,
        ATTR_OTSD_NORM: tracker.otsd_normalized_history,
        ATTR_OE: tracker.entropy_history,
    }
    bad = []
    for key, fresh in recomputed.items():
        old, new = points.stored[key][have], fresh[have]
        both = np.isfinite(old) & np.isfinite(new)
        same_nan = np.array_equal(np.isnan(old), np.isnan(new))
        if not (same_nan and np.allclose(old[both], new[both], rtol=AGREE_RTOL, atol=0)):
            bad.append(key)
    n = int(have.sum())
    if bad:
        return (
            f"WARNING: stored {bad} of {n} trials differ from the metrics recomputed here "
            "(the study was tracked with another space, order or version)"
        )
    return f"stored boexplore_* values of {n} trials agree with the recomputed metrics"


def points_trace(points: StudyPoints) -> pd.DataFrame:
    """Rows ``trial, x_0 .. x_{d-1}`` and, for a single objective, ``y``."""
    frame = pd.DataFrame(points.X, columns=[f"x_{i}" for i in range(points.d)])
    frame.insert(0, "trial", points.numbers)
    if points.values is not None:
        frame["y"] = points.values
    return frame


def study_summary(points: StudyPoints) -> str:
    """What was counted and how (stderr lines of ``diagnose``)."""
    skipped = ", ".join(f"{n} {s.lower()}" for s, n in sorted(points.skipped.items()))
    objective = (
        "several objectives: no incumbent column"
        if points.values is None
        else ("minimised" if points.minimize else "maximised")
    )
    constant = f" (constant, left out: {list(points.constant)})" if points.constant else ""
    return (
        f"{points.name!r}: {len(points.numbers)} complete trials counted"
        + (f" ({skipped} left out)" if skipped else "")
        + f"; d = {points.d} coordinates {points.columns}{constant}; {objective}\n"
        + stored_agreement(points)
    )
