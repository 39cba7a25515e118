"""What every platform integration shares (no platform import): the one error for study
shapes that cannot be measured, the coordinate rule's arithmetic, the names the metrics are
stored under, and the points a reader hands to ``boexplore metrics`` / ``diagnose``.

The coordinate rule (our extension; neither paper has categorical or integer parameters):
a range parameter ``[low, high]`` maps to ``(v - low) / (high - low)``, on ``log v`` for a
log scale, integers included; a categorical one with k choices to k coordinates, the chosen
one at :data:`ONE_HOT` and the rest 0, so two different choices are exactly 1 apart (the
most one continuous coordinate contributes) and equal ones 0; a parameter with one possible
value is left out (it carries no exploration and d does not count it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from boexplore.metrics.tracker import ExplorationTracker

#: Coordinate of the chosen category: two different choices end up 1 apart.
ONE_HOT = 1.0 / math.sqrt(2.0)

#: Names the live helpers store per counted trial: its position among the counted trials,
#: then OTSD, normalised OTSD and OE of the counted trials up to and including it.
ATTR_T = "boexplore_t"
ATTR_OTSD = "boexplore_otsd"
ATTR_OTSD_NORM = "boexplore_otsd_norm"
ATTR_OE = "boexplore_oe"
ATTRS = (ATTR_T, ATTR_OTSD, ATTR_OTSD_NORM, ATTR_OE)


class StudyShapeError(ValueError):
    """A study the exploration metrics cannot measure without guessing (the CLI exits 2)."""


def scaled(value: float, low: float, high: float, log: bool) -> float:
    """``value`` of the range ``[low, high]`` (log scale: of ``log``) as a number in [0, 1]."""
    if log:
        return (math.log(value) - math.log(low)) / (math.log(high) - math.log(low))
    return (value - low) / (high - low)


def one_hot(index: int, k: int) -> list[float]:
    """The k coordinates of choice ``index`` of a categorical parameter."""
    row = [0.0] * k
    row[index] = ONE_HOT
    return row


def stored_metrics(tracker: ExplorationTracker) -> dict[str, float | int | None]:
    """The values stored on the latest counted trial (OE None while undefined)."""
    oe = tracker.entropy
    return {
        ATTR_T: len(tracker),
        ATTR_OTSD: tracker.otsd,
        ATTR_OTSD_NORM: tracker.otsd_normalized,
        ATTR_OE: float(oe) if math.isfinite(oe) else None,
    }


@dataclass(frozen=True)
class StudyPoints:
    """The counted trials of one study (Optuna) or experiment (Ax) as unit-cube points."""

    name: str  # study / experiment name, for messages
    numbers: np.ndarray  # trial numbers (indices) of the counted trials, ascending
    X: np.ndarray  # (T, d) coordinates in [0,1]^d
    values: np.ndarray | None  # (T,) objective values; None when there are several
    minimize: bool  # direction of the (single) objective
    columns: list[str]  # one name per coordinate: the parameter, or "name=choice"
    constant: tuple[str, ...] = ()  # parameters left out (one possible value)
    stored: dict[str, np.ndarray] = field(default_factory=dict)  # ATTRS; NaN where absent
    skipped: dict[str, int] = field(default_factory=dict)  # state name -> trials left out

    @property
    def d(self) -> int:
        return self.X.shape[1]


def stored_columns(records: list[dict]) -> dict[str, np.ndarray]:
    """:data:`ATTRS` of each counted trial's stored record (NaN where absent or None)."""
    return {
        key: np.array([np.nan if r.get(key) is None else r[key] for r in records], dtype=np.float64)
        for key in ATTRS
    }
