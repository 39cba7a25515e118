"""Benchmark problems on the unit cube, all maximised.

Importing this package fills the registry: synthetic and embedded problems
(here), real-world problems (``boexplore.problems.realworld``) and paper-2
finite domains (``boexplore.problems.finite``).
"""

from __future__ import annotations

# Importing a problem module registers its problems.
from boexplore.problems import combinatorial, embedded, finite, realworld, synthetic  # noqa: F401
from boexplore.problems.base import Problem, ProblemInfo
from boexplore.problems.instances import from_spec, load_instance, save_instance
from boexplore.problems.registry import get_problem, list_problems, problem_info

__all__ = [
    "Problem",
    "ProblemInfo",
    "from_spec",
    "get_problem",
    "list_problems",
    "load_instance",
    "problem_info",
    "save_instance",
]
