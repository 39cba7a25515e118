"""A finished (or running) Optuna study read from its storage: the points the metrics see.

The same rule as the live callback (:mod:`.callback`): COMPLETE trials in trial-number
order, mapped by :class:`~.space.SearchSpace`; the other states are counted and skipped.
The stored ``boexplore_*`` user attributes come back beside the points, so a reader can
check them against metrics recomputed from the points.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import optuna
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from boexplore.integrations.common import StudyPoints, StudyShapeError, stored_columns
from boexplore.integrations.optuna.space import SearchSpace


def points_from_trials(
    trials: Sequence[FrozenTrial],
    directions: Sequence[StudyDirection],
    study_name: str = "study",
) -> StudyPoints:
    """Points of the COMPLETE ``trials`` in number order (StudyShapeError when none)."""
    ordered = sorted(trials, key=lambda t: t.number)
    done = [t for t in ordered if t.state == TrialState.COMPLETE]
    skipped = Counter(t.state.name for t in ordered if t.state != TrialState.COMPLETE)
    if not done:
        raise StudyShapeError(
            f"study {study_name!r} has no COMPLETE trial (of {len(ordered)} trials: "
            f"{dict(skipped) or 'none'})"
        )
    space = SearchSpace.of(done[0].distributions)
    X = np.vstack([space.to_unit(t.number, t.params, t.distributions) for t in done])
    single = len(directions) == 1
    return StudyPoints(
        name=study_name,
        numbers=np.array([t.number for t in done]),
        X=X,
        values=np.array([t.value for t in done], dtype=np.float64) if single else None,
        minimize=single and directions[0] == StudyDirection.MINIMIZE,
        columns=space.columns,
        constant=space.constant,
        stored=stored_columns([t.user_attrs for t in done]),
        skipped=dict(skipped),
    )


def load_study_points(storage: str, study_name: str | None = None) -> StudyPoints:
    """Read ``study_name`` (or the only study) from an Optuna RDB storage URL.

    A missing sqlite file, a missing study, or an unnamed study in a storage holding
    several is a StudyShapeError (Optuna itself would create the file or raise KeyError).
    """
    prefix = "sqlite:///"
    if storage.startswith(prefix) and not Path(storage[len(prefix) :]).is_file():
        raise StudyShapeError(f"--optuna-storage {storage}: no such sqlite file")
    if "://" not in storage:
        raise StudyShapeError(
            f"--optuna-storage {storage!r} is not a database URL (e.g. sqlite:///study.db)"
        )
    names = optuna.get_all_study_names(storage=storage)
    if study_name is None:
        if len(names) != 1:
            raise StudyShapeError(
                f"{storage} holds {len(names)} studies {sorted(names)}: name one with --study"
            )
        study_name = names[0]
    if study_name not in names:
        raise StudyShapeError(
            f"{storage} has no study {study_name!r}; its studies are {sorted(names)}"
        )
    study = optuna.load_study(study_name=study_name, storage=storage)
    return points_from_trials(study.get_trials(deepcopy=False), study.directions, study_name)
