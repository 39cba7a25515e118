"""An Ax experiment's search space as coordinates in [0,1]^d (rule: :mod:`..common`).

* range parameter, float or int: ``(v - lower) / (upper - lower)``, on ``log v`` when it
  has a log scale;
* choice parameter with k values, ordered or not: k one-hot coordinates (choices 1 apart);
* a fixed parameter, or a choice with one value, is left out; a derived parameter too (its
  value follows from the others).

Every counted trial must be one arm whose parameters are exactly the space's (a
hierarchical space leaves some out: refused), with values inside it (a space narrowed after
the trial ran: refused); either is a :class:`~..common.StudyShapeError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ax.core.parameter import ChoiceParameter, DerivedParameter, FixedParameter, RangeParameter
from ax.core.search_space import SearchSpace

from boexplore.integrations.common import StudyShapeError, one_hot, scaled


def _left_out(p: Any) -> bool:
    if isinstance(p, FixedParameter | DerivedParameter):
        return True
    if isinstance(p, ChoiceParameter):
        return len(p.values) == 1
    if isinstance(p, RangeParameter):
        return p.lower == p.upper
    raise StudyShapeError(f"unsupported Ax parameter {type(p).__name__} ({p})")


@dataclass(frozen=True)
class AxSpace:
    """The varying parameters of an experiment (sorted by name) and their coordinates."""

    parameters: Mapping[str, RangeParameter | ChoiceParameter]
    constant: tuple[str, ...]

    @classmethod
    def of(cls, search_space: SearchSpace) -> AxSpace:
        params = dict(sorted(search_space.parameters.items()))
        constant = tuple(n for n, p in params.items() if _left_out(p))
        varying = {n: p for n, p in params.items() if n not in constant}
        if not varying:
            raise StudyShapeError(
                f"the experiment has no parameter with more than one possible value "
                f"(parameters: {sorted(params) or 'none'}): nothing to measure"
            )
        return cls(varying, constant)

    @property
    def columns(self) -> list[str]:
        out: list[str] = []
        for name, p in self.parameters.items():
            if isinstance(p, ChoiceParameter):
                out.extend(f"{name}={v}" for v in p.values)
            else:
                out.append(name)
        return out

    @property
    def d(self) -> int:
        return len(self.columns)

    def to_unit(self, index: int, arm_parameters: Mapping[str, Any]) -> np.ndarray:
        """Coordinates of trial ``index``'s arm (StudyShapeError when it does not fit)."""
        missing = sorted(set(self.parameters) - set(arm_parameters))
        if missing:
            raise StudyShapeError(
                f"trial {index} lacks parameter(s) {missing}: conditional (hierarchical) "
                "parameters are not measured (a missing coordinate has no stated position)"
            )
        extra = sorted(set(arm_parameters) - set(self.parameters) - set(self.constant))
        if extra:
            raise StudyShapeError(
                f"trial {index} has parameter(s) {extra} the experiment's search space lacks: "
                "the search space changed within the experiment"
            )
        row: list[float] = []
        for name, p in self.parameters.items():
            value = arm_parameters[name]
            if isinstance(p, ChoiceParameter):
                if value not in p.values:
                    raise StudyShapeError(
                        f"trial {index}: {name}={value!r} is not one of {p.values}: the search "
                        "space changed within the experiment"
                    )
                row.extend(one_hot(p.values.index(value), len(p.values)))
                continue
            if not p.lower <= value <= p.upper:
                raise StudyShapeError(
                    f"trial {index}: {name}={value!r} is outside [{p.lower}, {p.upper}]: the "
                    "search space changed within the experiment"
                )
            row.append(scaled(float(value), float(p.lower), float(p.upper), p.log_scale))
        return np.asarray(row, dtype=np.float64)
