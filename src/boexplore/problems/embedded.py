"""Low-effective-dimension problems: a synthetic function hidden in a larger cube.

``hartmann6_embedded`` and ``branin_embedded`` live in ``[0,1]^D`` (D >= the
base dimension, default 100) but only ``d_base`` coordinates matter. The
instance seed picks which ones (a seeded random subset, in random order); the
remaining coordinates are ignored. The optimum is that of the base function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from boexplore.problems.base import Problem, ProblemInfo
from boexplore.problems.registry import register
from boexplore.problems.synthetic import SyntheticProblem

DEFAULT_DIM = 100

# embedded problem name -> (base synthetic problem, base dimension)
BASES: dict[str, tuple[str, int]] = {
    "hartmann6_embedded": ("hartmann", 6),
    "branin_embedded": ("branin", 2),
}


def choose_active_dims(dim: int, base_dim: int, instance_seed: int) -> list[int]:
    """The seeded random subset of ``base_dim`` coordinates (out of ``dim``) that matter."""
    rng = np.random.default_rng([instance_seed % 2**63, dim, base_dim])
    return [int(i) for i in rng.choice(dim, size=base_dim, replace=False)]


class EmbeddedProblem(Problem):
    """A base synthetic problem acting on a seeded subset of the coordinates."""

    negated = True

    def __init__(
        self,
        name: str,
        dim: int,
        instance_seed: int = 0,
        noise_std: float = 0.0,
        active_dims: Sequence[int] | None = None,
    ) -> None:
        if name not in BASES:
            raise ValueError(f"unknown embedded problem {name!r}; known: {', '.join(BASES)}")
        self.name = name
        base_name, base_dim = BASES[name]
        if not isinstance(dim, int | np.integer) or isinstance(dim, bool) or dim < base_dim:
            raise ValueError(f"{name}: dim must be an integer >= {base_dim}, got {dim!r}")
        dim = int(dim)
        if active_dims is None:
            active = choose_active_dims(dim, base_dim, instance_seed)
        else:
            active = [int(i) for i in active_dims]
            if len(active) != base_dim or len(set(active)) != base_dim:
                raise ValueError(f"{name}: active_dims must be {base_dim} distinct indices")
            if min(active) < 0 or max(active) >= dim:
                raise ValueError(f"{name}: active_dims must lie in [0, {dim - 1}]")
        self.base = SyntheticProblem(base_name, dim=base_dim)
        self.active_dims = active
        bounds = np.vstack([np.zeros(dim), np.ones(dim)])
        bounds[:, active] = self.base.bounds
        super().__init__(
            dim=dim,
            bounds=bounds,
            instance_seed=instance_seed,
            optimum_value=self.base.optimum_value,
            noise_std=noise_std,
        )
        if self.base.optimizer_unit is not None:
            opt = np.full(dim, 0.5)
            opt[active] = self.base.optimizer_unit
            self.optimizer_unit = opt

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        return self.base._evaluate_unit(X[:, self.active_dims])

    def _spec_options(self) -> dict[str, Any]:
        return {"active_dims": list(self.active_dims)}


def _factory(name: str):
    def factory(
        dim: int,
        instance_seed: int = 0,
        noise_std: float = 0.0,
        active_dims: Sequence[int] | None = None,
    ) -> EmbeddedProblem:
        return EmbeddedProblem(
            name, dim=dim, instance_seed=instance_seed, noise_std=noise_std, active_dims=active_dims
        )

    factory.__name__ = f"make_{name}"
    return factory


for _name, (_base, _base_dim) in BASES.items():
    register(
        ProblemInfo(
            name=_name,
            dims=f"any >= {_base_dim}",
            source=f"{_base} (d={_base_dim}) on a seeded random subset of the coordinates (negated)",
            kind="embedded",
            default_dim=DEFAULT_DIM,
            min_dim=_base_dim,
            max_dim=None,
            has_optimum=True,
            extra={"effective_dim": _base_dim},
        ),
        _factory(_name),
    )
