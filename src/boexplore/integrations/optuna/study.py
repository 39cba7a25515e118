"""A finished (or running) Optuna study read from its storage: the points the metrics see.

The same rule as the live callback (:mod:`.callback`): COMPLETE trials in trial-number
order, mapped by :class:`~.space.SearchSpace`; the other states are counted and skipped.
The stored ``boexplore_*`` user attributes come back beside the points, so a reader can
check them against metrics recomputed from the points.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import optuna
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from boexplore.integrations.optuna.callback import ATTRS
from boexplore.integrations.optuna.space import SearchSpace, StudyShapeError


@dataclass(frozen=True)
class StudyPoints:
    """The counted trials of one study as unit-cube points, with their values."""

    study_name: str
    numbers: np.ndarray  # trial numbers of the counted (COMPLETE) trials, ascending
    X: np.ndarray  # (T, d) coordinates in [0,1]^d
    values: np.ndarray | None  # (T,) objective values; None for a multi-objective study
    minimize: bool  # direction of the (single) objective
    space: SearchSpace
    stored: dict[str, np.ndarray] = field(default_factory=dict)  # ATTRS; NaN where absent
    skipped: dict[str, int] = field(default_factory=dict)  # state name -> trials left out

    @property
    def maximised_values(self) -> np.ndarray | None:
        """Values with the sign that makes larger better (the timeline's convention)."""
        if self.values is None:
            return None
        return -self.values if self.minimize else self.values


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
    values = np.array([t.value for t in done], dtype=np.float64) if single else None
    stored = {
        key: np.array(
            [np.nan if t.user_attrs.get(key) is None else t.user_attrs[key] for t in done],
            dtype=np.float64,
        )
        for key in ATTRS
    }
    return StudyPoints(
        study_name=study_name,
        numbers=np.array([t.number for t in done]),
        X=X,
        values=values,
        minimize=single and directions[0] == StudyDirection.MINIMIZE,
        space=space,
        stored=stored,
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
