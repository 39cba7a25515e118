"""Method specs of BO on binary / categorical / mixed domains (our extension).

A spec is ``base`` or ``base(key=value, ...)``:

- model-free: ``random`` (uniform on the domain), ``sa`` (simulated annealing, a strong
  exploiter; ``t0`` initial temperature as a fraction of the initial design's spread of y,
  ``t_end`` final temperature as a fraction of t0);
- GP-based (``boexplore.discrete.gp``): ``logei``, ``pi``, ``ucb(beta=B)``, ``greedy`` (the
  posterior mean), ``ts`` (Thompson sampling on a candidate set).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: Base methods and their parameters with defaults.
METHODS: dict[str, dict[str, float]] = {
    "random": {},
    "sa": {"t0": 0.5, "t_end": 1e-3},
    "logei": {},
    "pi": {},
    "ucb": {"beta": 2.0},
    "greedy": {},
    "ts": {},
}
MODEL_FREE = frozenset({"random", "sa"})
_SPEC = re.compile(r"^\s*([a-z]+)\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class DiscreteMethod:
    """A parsed spec: ``base`` and its ``params`` (defaults filled in)."""

    base: str
    params: dict[str, float] = field(default_factory=dict)

    @property
    def uses_model(self) -> bool:
        """True for the GP-based methods."""
        return self.base not in MODEL_FREE


def parse_discrete_method(spec: str) -> DiscreteMethod:
    """Parse ``base(key=value, ...)``; a ``ValueError`` names an unknown base or parameter."""
    m = _SPEC.match(str(spec))
    if not m or m.group(1) not in METHODS:
        raise ValueError(
            f"discrete method {spec!r}: expected one of {', '.join(METHODS)} "
            f"with optional (key=value) parameters"
        )
    base = m.group(1)
    params: dict[str, Any] = dict(METHODS[base])
    for item in filter(None, (s.strip() for s in (m.group(2) or "").split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in METHODS[base]:
            raise ValueError(
                f"discrete method {spec!r}: unknown parameter {key!r} "
                f"(known: {', '.join(METHODS[base]) or 'none'})"
            )
        try:
            params[key] = float(value)
        except ValueError:
            raise ValueError(f"discrete method {spec!r}: {key} must be a number") from None
    if base == "ucb" and params["beta"] < 0:
        raise ValueError(f"discrete method {spec!r}: beta must be >= 0")
    return DiscreteMethod(base, params)
