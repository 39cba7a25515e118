"""Name -> factory registry for benchmark problems.

Modules register their problems at import time with ``register``; the
package ``__init__`` imports every problem module so the registry is full.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable

from boexplore.problems.base import Problem, ProblemInfo

Factory = Callable[..., Problem]  # factory(dim=..., instance_seed=..., **options)

_REGISTRY: dict[str, tuple[ProblemInfo, Factory]] = {}


def register(info: ProblemInfo, factory: Factory) -> None:
    """Add a problem; a duplicate name is a programming error."""
    if info.name in _REGISTRY:
        raise ValueError(f"problem {info.name!r} registered twice")
    _REGISTRY[info.name] = (info, factory)


def list_problems() -> list[ProblemInfo]:
    """Every registered problem, sorted by name."""
    return [info for _, (info, _) in sorted(_REGISTRY.items())]


def problem_info(name: str) -> ProblemInfo:
    """Registry entry for ``name`` or a ``KeyError`` listing the known names."""
    try:
        return _REGISTRY[name][0]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise KeyError(f"unknown problem {name!r}; known problems: {known}") from None


def get_problem(name: str, dim: int | None = None, instance_seed: int = 0, **options) -> Problem:
    """Create a problem instance; ``dim=None`` takes the problem's default dimension."""
    info = problem_info(name)
    if dim is None:
        if info.default_dim is None:
            raise ValueError(f"problem {name!r} needs an explicit dim ({info.dims})")
        dim = info.default_dim
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise ValueError(f"problem {name!r}: dim must be an integer, got {dim!r}")
    dim = int(dim)
    if dim < info.min_dim or (info.max_dim is not None and dim > info.max_dim):
        raise ValueError(f"problem {name!r} is defined for dim {info.dims}, got {dim}")
    factory = _REGISTRY[name][1]
    try:
        inspect.signature(factory).bind(dim=dim, instance_seed=instance_seed, **options)
    except TypeError as exc:
        raise ValueError(f"problem {name!r}: invalid options {sorted(options)} ({exc})") from None
    return factory(dim=dim, instance_seed=instance_seed, **options)
