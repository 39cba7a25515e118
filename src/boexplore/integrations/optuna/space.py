"""An Optuna study's search space as coordinates in [0,1]^d.

The rule (our extension; neither paper has categorical or integer parameters; the
arithmetic is :mod:`boexplore.integrations.common`'s):

* float: ``(v - low) / (high - low)``; on a log scale the same on ``log v``; a ``step``
  keeps its grid, which lands inside [0, 1];
* int: the same as float (log scale too), so neighbouring integers are ``1 / (high - low)``
  apart;
* categorical with k choices: k coordinates, the chosen one at ``1/sqrt(2)`` and the rest 0,
  so two different choices are exactly 1 apart (the largest distance one continuous
  coordinate contributes) and equal choices 0; its k coordinates count in d (``Psi(d, t)``);
* a parameter with one possible value (``low == high``, one choice) carries no exploration
  and is left out of the coordinates (and of d).

Coordinates are ordered by parameter name (choices in their declared order), so two
readers of the same study build the same points. Every counted trial must have the same
parameters with the same distributions as the first one: a parameter missing in a trial
(conditional), a new one, or a changed range or choice list is a :class:`StudyShapeError`
naming the trial and the parameter, never a guessed coordinate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from boexplore.integrations.common import StudyShapeError, one_hot, scaled


def _is_constant(dist: BaseDistribution) -> bool:
    if isinstance(dist, CategoricalDistribution):
        return len(dist.choices) == 1
    if isinstance(dist, FloatDistribution | IntDistribution):
        return dist.low == dist.high
    raise StudyShapeError(f"unsupported Optuna distribution {type(dist).__name__}")


@dataclass(frozen=True)
class SearchSpace:
    """The varying parameters of a study (sorted by name), their distributions and columns."""

    distributions: Mapping[str, BaseDistribution]
    constant: tuple[str, ...]

    @classmethod
    def of(cls, distributions: Mapping[str, BaseDistribution]) -> SearchSpace:
        """The space of one trial's ``distributions`` (its parameter name -> distribution)."""
        varying = {n: distributions[n] for n in sorted(distributions)}
        constant = tuple(n for n, dist in varying.items() if _is_constant(dist))
        for name in constant:
            del varying[name]
        if not varying:
            raise StudyShapeError(
                "the study has no parameter with more than one possible value "
                f"(parameters: {sorted(distributions) or 'none'}): nothing to measure"
            )
        return cls(varying, constant)

    @property
    def columns(self) -> list[str]:
        """One name per coordinate: the parameter, or ``name=choice`` for a category."""
        out: list[str] = []
        for name, dist in self.distributions.items():
            if isinstance(dist, CategoricalDistribution):
                out.extend(f"{name}={choice}" for choice in dist.choices)
            else:
                out.append(name)
        return out

    @property
    def d(self) -> int:
        """Number of coordinates (a categorical parameter counts its choices)."""
        return len(self.columns)

    def check(self, number: int, distributions: Mapping[str, BaseDistribution]) -> None:
        """StudyShapeError unless trial ``number`` has exactly this space's parameters."""
        expected = set(self.distributions) | set(self.constant)
        missing = sorted(expected - set(distributions))
        extra = sorted(set(distributions) - expected)
        if missing:
            raise StudyShapeError(
                f"trial {number} lacks parameter(s) {missing} that the first counted trial "
                "has: conditional parameters are not measured (a missing coordinate has no "
                "stated position); measure each branch as its own study"
            )
        if extra:
            raise StudyShapeError(
                f"trial {number} has parameter(s) {extra} that the first counted trial lacks: "
                "the search space changed (or parameters are conditional) within the study"
            )
        first = {**self.distributions}
        for name in sorted(expected):
            dist = distributions[name]
            was = first.get(name)
            if was is None:  # a constant parameter: it must stay constant and the same
                if not _is_constant(dist):
                    raise StudyShapeError(
                        f"trial {number}: parameter {name!r} is now {dist}, it had one value "
                        "before: the search space changed within the study"
                    )
                continue
            if dist != was:
                raise StudyShapeError(
                    f"trial {number}: parameter {name!r} is {dist}, the first counted trial "
                    f"had {was}: the search space changed within the study"
                )

    def to_unit(self, number: int, params: Mapping[str, Any],
                distributions: Mapping[str, BaseDistribution]) -> np.ndarray:  # fmt: skip
        """Coordinates in [0,1]^d of trial ``number`` (checked against the space first)."""
        self.check(number, distributions)
        row: list[float] = []
        for name, dist in self.distributions.items():
            value = params[name]
            if isinstance(dist, CategoricalDistribution):
                row.extend(one_hot(int(dist.to_internal_repr(value)), len(dist.choices)))
            else:
                row.append(scaled(float(value), dist.low, dist.high, dist.log))
        return np.asarray(row, dtype=np.float64)
