"""Live exploration metrics of an Optuna study, stored as each trial's user attributes.

Optuna calls ``study.optimize(..., callbacks=[cb])`` after a trial has finished, and a
finished trial refuses new attributes (``UpdateFinishedTrialError``). So the metrics are
written by the wrapped objective, while the trial still runs, and the callback checks each
finished trial against what was written::

    explore = ExplorationCallback()
    study.optimize(explore.wrap(objective), n_trials=50, callbacks=[explore])

Which trials count: COMPLETE ones, in trial-number order (the order the sampler proposed
them). Pruned, failed, running and waiting trials are not points of the sequence. The
wrapped objective decides "complete" as Optuna does (each returned value converts to a
float that is not NaN, one per objective); should Optuna still end the trial otherwise, the
callback drops it from the tracker again. Live counting needs one worker: a trial that
completes after a trial with a larger number was counted is a :class:`StudyShapeError`
(a trial left RUNNING by a process that died does not matter: it never completes).
A study resumed in a new process is picked up where it was: the tracker first replays the
complete trials already in the study.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import optuna
from optuna.trial import FrozenTrial, TrialState

from boexplore.integrations.common import StudyShapeError, stored_metrics
from boexplore.integrations.optuna.space import SearchSpace
from boexplore.metrics.tracker import ExplorationTracker


def completes(value: Any, n_objectives: int) -> bool:
    """Whether Optuna will store ``value`` as a COMPLETE trial's value(s)."""
    values = list(value) if isinstance(value, Sequence) and not isinstance(value, str) else [value]
    if len(values) != n_objectives:
        return False
    try:
        return not any(math.isnan(float(v)) for v in values)
    except (TypeError, ValueError):
        return False


class ExplorationCallback:
    """Tracks OTSD, normalised OTSD and OE of a study's complete trials as they finish.

    ``wrap(objective)`` returns the objective to optimise; the instance itself is the
    callback. After each counted trial, ``tracker`` holds the metrics of the sequence so
    far, ``numbers`` the counted trial numbers and ``space`` the coordinate map.
    """

    def __init__(self) -> None:
        self.space: SearchSpace | None = None
        self.tracker: ExplorationTracker | None = None
        self.numbers: list[int] = []
        self._points: list[np.ndarray] = []
        self._wrapped = False
        self._lock = threading.Lock()

    def wrap(self, objective: Callable[[optuna.Trial], Any]) -> Callable[[optuna.Trial], Any]:
        """``objective`` that also records its trial's metrics when the trial completes."""
        self._wrapped = True

        @functools.wraps(objective)
        def wrapped(trial: optuna.Trial) -> Any:
            value = objective(trial)
            if completes(value, len(trial.study.directions)):
                self._record(trial)
            return value

        return wrapped

    def _record(self, trial: optuna.Trial) -> None:
        with self._lock:
            study = trial.study
            if self.numbers and trial.number < self.numbers[-1]:
                raise StudyShapeError(
                    f"trial {trial.number} completes after trial {self.numbers[-1]} was "
                    "counted: live exploration metrics count trials in number order, so they "
                    "need one worker (n_jobs=1); measure a parallel study after the fact "
                    "(boexplore diagnose --optuna-storage)"
                )
            if self.tracker is None:
                self._replay(study, trial.number)
            self._add(trial.number, trial.params, trial.distributions)
            for key, value in stored_metrics(self.tracker).items():
                trial.set_user_attr(key, value)

    def _replay(self, study: optuna.Study, before: int) -> None:
        """Feed the complete trials the study already holds (a resumed study)."""
        done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        for t in sorted(done, key=lambda t: t.number):
            if t.number < before:
                self._add(t.number, t.params, t.distributions)

    def _add(self, number: int, params: dict, distributions: dict) -> None:
        if self.space is None:
            self.space = SearchSpace.of(distributions)
        x = self.space.to_unit(number, params, distributions)
        if self.tracker is None:
            self.tracker = ExplorationTracker(self.space.d)
        self.tracker.update(x)
        self.numbers.append(number)
        self._points.append(x)

    def __call__(self, study: optuna.Study, trial: FrozenTrial) -> None:
        """Optuna callback: check the finished ``trial`` against what was recorded."""
        with self._lock:
            recorded = trial.number in self.numbers
            if trial.state == TrialState.COMPLETE and not recorded:
                why = (
                    "its objective was not wrapped: pass explore.wrap(objective) to study.optimize"
                    if not self._wrapped
                    else "the wrapped objective did not record it"
                )
                raise StudyShapeError(f"trial {trial.number} completed unmeasured: {why}")
            if recorded and trial.state != TrialState.COMPLETE:
                self._drop(trial.number)

    def _drop(self, number: int) -> None:
        """Rebuild the tracker without trial ``number`` (Optuna did not complete it)."""
        keep = [i for i, n in enumerate(self.numbers) if n != number]
        self.numbers = [self.numbers[i] for i in keep]
        self._points = [self._points[i] for i in keep]
        self.tracker = ExplorationTracker(self.space.d) if self.space else None
        if self.tracker is not None and self._points:
            self.tracker.update(np.vstack(self._points))
