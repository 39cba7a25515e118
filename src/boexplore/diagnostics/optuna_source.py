"""An Optuna study as a trace for ``boexplore diagnose --optuna-storage`` (optuna + pandas).

The study's COMPLETE trials become rows ``trial, x_0 .. x_{d-1}, y`` (the rule of
:mod:`boexplore.integrations.optuna.space`); the summary line says what was counted, what
was skipped, and whether the metrics the live callback stored agree with the recomputed
ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from boexplore.integrations.optuna.callback import ATTR_OE, ATTR_OTSD, ATTR_OTSD_NORM
from boexplore.integrations.optuna.study import StudyPoints, load_study_points
from boexplore.metrics.tracker import ExplorationTracker

#: Stored and recomputed metrics agree when they differ by at most this (relative).
AGREE_RTOL = 1e-9


def stored_agreement(points: StudyPoints) -> str:
    """One sentence comparing the stored ``boexplore_*`` attributes with recomputed metrics."""
    stored = points.stored[ATTR_OTSD]
    have = np.isfinite(stored)
    if not have.any():
        return "no stored boexplore_* attributes (the study ran without the callback)"
    tracker = ExplorationTracker(points.X.shape[1]).update(points.X)
    recomputed = {
        ATTR_OTSD: tracker.otsd_history,
        ATTR_OTSD_NORM: tracker.otsd_normalized_history,
        ATTR_OE: tracker.entropy_history,
    }
    bad = []
    for key, fresh in recomputed.items():
        old = points.stored[key][have]
        new = fresh[have]
        both = np.isfinite(old) & np.isfinite(new)
        same_nan = np.isnan(old) == np.isnan(new)
        if not (same_nan.all() and np.allclose(old[both], new[both], rtol=AGREE_RTOL, atol=0)):
            bad.append(key)
    n = int(have.sum())
    if bad:
        return (
            f"WARNING: stored {bad} of {n} trials differ from the metrics recomputed here "
            "(the study was tracked with another space, order or version)"
        )
    return f"stored boexplore_* attributes of {n} trials agree with the recomputed metrics"


def study_trace(storage: str, study_name: str | None) -> tuple[pd.DataFrame, str, StudyPoints]:
    """(trace rows, label for messages, the points) of one study in ``storage``."""
    points = load_study_points(storage, study_name)
    frame = pd.DataFrame(points.X, columns=[f"x_{i}" for i in range(points.X.shape[1])])
    frame.insert(0, "trial", points.numbers)
    if points.values is not None:
        frame["y"] = points.values
    return frame, f"{storage} study {points.study_name!r}", points


def study_summary(points: StudyPoints) -> str:
    """What was counted and how (stderr lines of ``diagnose``)."""
    skipped = ", ".join(f"{n} {s.lower()}" for s, n in sorted(points.skipped.items()))
    objective = (
        "multi-objective: no incumbent column"
        if points.values is None
        else ("minimised" if points.minimize else "maximised")
    )
    return (
        f"study {points.study_name!r}: {len(points.numbers)} COMPLETE trials counted"
        + (f" ({skipped} left out)" if skipped else "")
        + f"; d = {points.space.d} coordinates {points.space.columns}"
        + (f" (constant, left out: {list(points.space.constant)})" if points.space.constant else "")
        + f"; {objective}\n{stored_agreement(points)}"
    )
