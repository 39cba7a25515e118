"""Live exploration metrics of an Ax ``Client`` loop, stored in each trial's run metadata.

Call :meth:`AxExploration.observe` after completing trials::

    explore = AxExploration()
    for _ in range(20):
        for index, parameters in client.get_next_trials(max_trials=1).items():
            client.complete_trial(trial_index=index, raw_data={"loss": f(parameters)})
        metrics = explore.observe(client)

Each newly COMPLETED trial (index order) is mapped by :class:`~.space.AxSpace`, fed to the
tracker, and gets ``boexplore_t``, ``boexplore_otsd``, ``boexplore_otsd_norm`` and
``boexplore_oe`` in its run metadata, which the Client's JSON snapshot keeps. The sequence
must grow in index order: a trial completing after one with a larger index was counted, or
a search space that changes between calls, is a :class:`~..common.StudyShapeError`.
"""

from __future__ import annotations

from typing import Any

from ax.core.experiment import Experiment

from boexplore.integrations.ax.experiment import completed_trials
from boexplore.integrations.ax.space import AxSpace
from boexplore.integrations.common import StudyShapeError, stored_metrics
from boexplore.metrics.tracker import ExplorationTracker


def experiment_of(client_or_experiment: Any) -> Experiment:
    """The Experiment of an Ax ``Client`` (which has no public accessor for it) or itself."""
    if isinstance(client_or_experiment, Experiment):
        return client_or_experiment
    return client_or_experiment._experiment  # noqa: SLF001 - Client keeps it private


class AxExploration:
    """Tracks OTSD, normalised OTSD and OE of an Ax experiment's completed trials."""

    def __init__(self) -> None:
        self.space: AxSpace | None = None
        self.tracker: ExplorationTracker | None = None
        self.indices: list[int] = []
        self._signature: str | None = None

    def observe(self, client_or_experiment: Any) -> dict[str, Any] | None:
        """Count the trials completed since the last call; the latest stored values."""
        experiment = experiment_of(client_or_experiment)
        signature = repr(sorted(experiment.search_space.parameters.items()))
        if self._signature is not None and signature != self._signature:
            raise StudyShapeError(
                f"the search space of experiment {experiment.name!r} changed after trial "
                f"{self.indices[-1]}: the points counted so far were mapped with the old one"
            )
        self._signature = signature
        counted = set(self.indices)
        new = [t for t in completed_trials(experiment) if t.index not in counted]
        if new and self.indices and new[0].index < self.indices[-1]:
            raise StudyShapeError(
                f"trial {new[0].index} completed after trial {self.indices[-1]} was counted: "
                "live metrics count trials in index order; measure the experiment after the "
                "fact (boexplore diagnose --ax-snapshot)"
            )
        if self.space is None and new:
            self.space = AxSpace.of(experiment.search_space)
            self.tracker = ExplorationTracker(self.space.d)
        latest = None
        for trial in new:
            self.tracker.update(self.space.to_unit(trial.index, trial.arm.parameters))
            self.indices.append(trial.index)
            latest = stored_metrics(self.tracker)
            trial.update_run_metadata(latest)
        return latest
