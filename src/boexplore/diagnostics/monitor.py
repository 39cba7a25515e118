"""ExplorationMonitor: where a running BO loop stands against the references, with a stable state.

After every evaluation the monitor reports the run's normalised OTSD, its ratio to the
uniform-random median at the same (d, t), where that ratio falls among the reference
methods' runs, and a state:

* ``over-exploring``: ratio >= ``over_ratio`` (default 1: the run spreads its points at
  least as much as uniform random search — the model is not steering it);
* ``under-exploring``: ratio <= the ``under_quantile`` of the reference methods' runs
  (it explores less than almost every reference run did at this (d, t));
* ``balanced`` otherwise.

The raw state is smoothed by :func:`hysteresis` (a switch needs ``patience`` consecutive
raw states that agree), so the reported state never changes more often than the raw one.
No state is given during the initial design and the ``warmup`` evaluations after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from boexplore.diagnostics.references import References, load_references
from boexplore.diagnostics.stopping import StopRule
from boexplore.metrics.tracker import ExplorationTracker

OVER = "over-exploring"
BALANCED = "balanced"
UNDER = "under-exploring"
STATES: tuple[str, ...] = (OVER, BALANCED, UNDER)


@dataclass(frozen=True)
class MonitorThresholds:
    """State rule of the monitor (``analysis.uses.monitor`` in the workflow config)."""

    warmup: int = 3
    over_ratio: float = 1.0
    under_quantile: float = 0.05
    patience: int = 3

    def __post_init__(self) -> None:
        if self.warmup < 0 or self.patience < 1 or self.over_ratio <= 0:
            raise ValueError(f"MonitorThresholds: invalid values {self}")


@dataclass(frozen=True)
class MonitorStep:
    """The monitor's reading after evaluation ``t`` (``state`` is None while warming up)."""

    t: int
    otsd_norm: float
    ratio: float
    under_ratio: float
    u_median: float
    raw_state: str | None
    state: str | None
    best: float
    stop: bool


def raw_states(
    ratio: Sequence[float], under_ratio: Sequence[float], over_ratio: float, active: Sequence[bool]
) -> list[str | None]:
    """Unsmoothed state per step: over / under / balanced where ``active``, else None."""
    out: list[str | None] = []
    for r, u, a in zip(ratio, under_ratio, active, strict=True):
        if not a or not np.isfinite(r):
            out.append(None)
        elif r >= over_ratio:
            out.append(OVER)
        elif r <= u:
            out.append(UNDER)
        else:
            out.append(BALANCED)
    return out


def hysteresis(raw: Sequence[str | None], patience: int) -> list[str | None]:
    """Smoothed states: start at the first defined raw state, switch after ``patience`` agreeing.

    Between two switches the raw state must change at least once (each switch needs the
    raw state to equal the new state, and the previous switch needed it to equal the old
    one), so the smoothed sequence never has more changes than the raw one.
    """
    if patience < 1:
        raise ValueError(f"hysteresis: patience must be >= 1, got {patience}")
    out: list[str | None] = []
    state: str | None = None
    run_state: str | None = None
    run_len = 0
    for s in raw:
        if s is None:
            out.append(state)
            run_state, run_len = None, 0
            continue
        run_len = run_len + 1 if s == run_state else 1
        run_state = s
        if state is None or (s != state and run_len >= patience):
            state = s
        out.append(state)
    return out


def assess(
    otsd_norm: Sequence[float],
    d: int,
    n_init: int,
    thresholds: MonitorThresholds,
    references: References,
) -> dict[str, np.ndarray | list[str | None]]:
    """Ratio to uniform random, under-threshold, raw and smoothed state per step t = 1..T.

    The one implementation of the state rule: the live monitor calls it on its history
    and the P1-U1 / U3 analysis on every release trace.
    """
    o = np.asarray(otsd_norm, dtype=np.float64)
    t = np.arange(1, o.size + 1)
    u_med = np.array([references.uniform(d, int(k))["u_median"] for k in t])
    ratio = np.where(t > 1, o / np.where(u_med > 0, u_med, np.nan), np.nan)
    under = np.array([references.ratio_quantile(d, int(k), thresholds.under_quantile) for k in t])
    active = (t >= n_init + thresholds.warmup) & (t > 1)
    raw = raw_states(ratio, under, thresholds.over_ratio, active)
    return {
        "u_median": u_med,
        "ratio": ratio,
        "under_ratio": under,
        "raw_state": raw,
        "state": hysteresis(raw, thresholds.patience),
    }


class ExplorationMonitor:
    """Live diagnosis of a BO run: feed every evaluation with :meth:`update`.

    ``n_init``: size of the initial design; when None, the first :meth:`update` call's
    batch is taken as the initial design. ``references`` default to the shipped table
    (:func:`load_references`). ``stop_rule`` adds the early-stopping flag (``step.stop``).
    """

    def __init__(
        self,
        d: int,
        *,
        n_init: int | None = None,
        thresholds: MonitorThresholds | None = None,
        references: References | None = None,
        stop_rule: StopRule | None = None,
        bounds: ArrayLike | None = None,
    ) -> None:
        self.d = int(d)
        self.n_init = n_init
        self.thresholds = thresholds or MonitorThresholds()
        self.references = references or load_references()
        self.stop_rule = stop_rule
        self.tracker = ExplorationTracker(self.d, bounds=bounds)
        self._y: list[float] = []
        self._steps: list[MonitorStep] = []
        self.stopped_at: int | None = None

    def __len__(self) -> int:
        return len(self.tracker)

    @property
    def steps(self) -> list[MonitorStep]:
        """One :class:`MonitorStep` per evaluation so far."""
        return list(self._steps)

    @property
    def state(self) -> str | None:
        """Current smoothed state (None while warming up)."""
        return self._steps[-1].state if self._steps else None

    def update(self, x: ArrayLike, y: ArrayLike | None = None) -> MonitorStep:
        """Add one point (d,) or a batch (n, d) with its values (maximisation); returns the last step."""
        X = np.atleast_2d(np.asarray(x, dtype=np.float64))
        Y = (
            np.full(X.shape[0], np.nan)
            if y is None
            else np.atleast_1d(np.asarray(y, dtype=np.float64)).ravel()
        )
        if Y.shape[0] != X.shape[0]:
            raise ValueError(f"update: {X.shape[0]} points but {Y.shape[0]} values")
        if self.n_init is None:
            self.n_init = X.shape[0]
        step = None
        for row, val in zip(X, Y, strict=True):
            self.tracker.update(row)
            self._y.append(float(val))
            step = self._step()
            self._steps.append(step)
        assert step is not None
        return step

    def _step(self) -> MonitorStep:
        t = len(self.tracker)
        a = assess(
            self.tracker.otsd_normalized_history,
            self.d,
            int(self.n_init or 0),
            self.thresholds,
            self.references,
        )
        y = np.asarray(self._y)
        best = float(np.nanmax(y)) if np.isfinite(y).any() else np.nan
        if self.stop_rule is not None and self.stopped_at is None:
            hit = self.stop_rule.stop_index(
                self.tracker.otsd_history, y, self.d, int(self.n_init or 0), last_only=True
            )
            if hit is not None:
                self.stopped_at = t
        return MonitorStep(
            t=t,
            otsd_norm=float(self.tracker.otsd_normalized),
            ratio=float(a["ratio"][-1]),
            under_ratio=float(a["under_ratio"][-1]),
            u_median=float(a["u_median"][-1]),
            raw_state=a["raw_state"][-1],
            state=a["state"][-1],
            best=best,
            stop=self.stopped_at is not None,
        )
