"""An Ax experiment's counted trials as points, live (after each completed trial of a
``Client`` loop) and after the fact (from the JSON snapshot ``Client.save_to_json_file``
writes).

Which trials count: COMPLETED ones, in trial-index order; failed, abandoned, early-stopped,
running and candidate trials are left out and counted. A trial with several arms (a batch
trial) is a :class:`~..common.StudyShapeError`: its arms have no order.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from ax.core.base_trial import TrialStatus
from ax.core.experiment import Experiment
from ax.storage.json_store.decoder import object_from_json

from boexplore.integrations.ax.space import AxSpace
from boexplore.integrations.common import (
    StudyPoints,
    StudyShapeError,
    stored_columns,
)


def completed_trials(experiment: Experiment) -> list[Any]:
    """The COMPLETED trials in index order (StudyShapeError for a trial of several arms)."""
    done = []
    for index in sorted(experiment.trials):
        trial = experiment.trials[index]
        if trial.status != TrialStatus.COMPLETED:
            continue
        if len(trial.arms) != 1:
            raise StudyShapeError(
                f"trial {index} has {len(trial.arms)} arms: the arms of a batch trial have "
                "no order, so they form no sequence of observations"
            )
        done.append(trial)
    return done


def objective_values(experiment: Experiment, indices: list[int]) -> tuple[np.ndarray | None, bool]:
    """(values of the single objective per trial index, minimise?); None for several."""
    config = experiment.optimization_config
    names = [] if config is None else list(config.objective.metric_names)
    if len(names) != 1 or type(config.objective).__name__ != "Objective":
        return None, False
    df = experiment.lookup_data().df
    df = df[df["metric_name"] == names[0]]
    last = df.groupby("trial_index")["mean"].last()
    values = np.array([last.get(i, np.nan) for i in indices], dtype=np.float64)
    return values, bool(config.objective.minimize)


def experiment_points(experiment: Experiment) -> StudyPoints:
    """Points of the COMPLETED trials of ``experiment`` (StudyShapeError when none)."""
    done = completed_trials(experiment)
    skipped = Counter(
        t.status.name for t in experiment.trials.values() if t.status != TrialStatus.COMPLETED
    )
    if not done:
        raise StudyShapeError(
            f"experiment {experiment.name!r} has no COMPLETED trial "
            f"(of {len(experiment.trials)} trials: {dict(skipped) or 'none'})"
        )
    space = AxSpace.of(experiment.search_space)
    X = np.vstack([space.to_unit(t.index, t.arm.parameters) for t in done])
    indices = [t.index for t in done]
    values, minimize = objective_values(experiment, indices)
    return StudyPoints(
        name=experiment.name,
        numbers=np.array(indices),
        X=X,
        values=values,
        minimize=minimize,
        columns=space.columns,
        constant=space.constant,
        stored=stored_columns([t.run_metadata for t in done]),
        skipped=dict(skipped),
    )


def load_snapshot_points(path: str | Path) -> StudyPoints:
    """Points of the experiment in a ``Client.save_to_json_file`` snapshot."""
    path = Path(path)
    if not path.is_file():
        raise StudyShapeError(f"--ax-snapshot {path}: no such file")
    try:
        snapshot = json.loads(path.read_text())
        experiment_json = snapshot["experiment"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise StudyShapeError(
            f"--ax-snapshot {path}: not an Ax Client snapshot (Client.save_to_json_file): {exc}"
        ) from None
    return experiment_points(object_from_json(experiment_json))
