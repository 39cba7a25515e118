"""Exploration metrics of Optuna studies (the ``optuna`` extra; no torch).

Live: :class:`ExplorationCallback` (``study.optimize(cb.wrap(objective), callbacks=[cb])``)
stores OTSD, normalised OTSD and OE as user attributes of each complete trial. After the
fact: :func:`load_study_points` reads a study from its storage for ``boexplore metrics`` /
``boexplore diagnose --optuna-storage``. How parameters become coordinates and which study
shapes are refused: :mod:`boexplore.integrations.optuna.space`.
"""

from boexplore.integrations.common import ATTRS, ONE_HOT, StudyPoints, StudyShapeError
from boexplore.integrations.optuna.callback import ExplorationCallback
from boexplore.integrations.optuna.space import SearchSpace
from boexplore.integrations.optuna.study import load_study_points, points_from_trials

__all__ = [
    "ATTRS",
    "ONE_HOT",
    "ExplorationCallback",
    "SearchSpace",
    "StudyPoints",
    "StudyShapeError",
    "load_study_points",
    "points_from_trials",
]
