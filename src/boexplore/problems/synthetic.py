"""Classic synthetic test functions, wrapped from ``botorch.test_functions.synthetic``.

All of them are minimisation problems in their usual form, so they are
negated here (``negated = True``) and the optimum values are reported in the
maximisation convention. BoTorch is imported lazily so that listing problems
(``boexplore problems list``) does not pay for the torch import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from boexplore.problems.base import Problem, ProblemInfo
from boexplore.problems.registry import register


@dataclass(frozen=True)
class SyntheticSpec:
    """Static description of one wrapped BoTorch function."""

    name: str
    botorch_class: str
    dims: str
    default_dim: int
    min_dim: int
    max_dim: int | None
    allowed_dims: tuple[int, ...] | None = None  # None: every dim in [min_dim, max_dim]
    fixed_dim: bool = False  # the BoTorch class takes no ``dim`` argument
    optimum_dims: tuple[int, ...] | None = None  # None: optimum known for every dim


SPECS: dict[str, SyntheticSpec] = {
    s.name: s
    for s in (
        SyntheticSpec("branin", "Branin", "2", 2, 2, 2, fixed_dim=True),
        SyntheticSpec("hartmann", "Hartmann", "3 or 6", 6, 3, 6, allowed_dims=(3, 6)),
        SyntheticSpec("ackley", "Ackley", "any >= 2", 10, 2, None),
        SyntheticSpec("levy", "Levy", "any >= 2", 10, 2, None),
        SyntheticSpec("rosenbrock", "Rosenbrock", "any >= 2", 10, 2, None),
        SyntheticSpec("griewank", "Griewank", "any >= 2", 10, 2, None),
        SyntheticSpec("styblinski_tang", "StyblinskiTang", "any >= 2", 10, 2, None),
        SyntheticSpec(
            "michalewicz", "Michalewicz", "any >= 2", 10, 2, None, optimum_dims=(2, 5, 10)
        ),
    )
}


def make_botorch_function(spec: SyntheticSpec, dim: int) -> Any:
    """Instantiate the (un-negated, noise-free, float64) BoTorch test function."""
    import torch
    from botorch.test_functions import synthetic as bt

    cls = getattr(bt, spec.botorch_class)
    kwargs: dict[str, Any] = {"dtype": torch.float64}
    if not spec.fixed_dim:
        kwargs["dim"] = dim
    return cls(**kwargs)


def _known_optimum(func: Any) -> tuple[float | None, np.ndarray | None]:
    """(minimum value, one minimiser in original coordinates) as far as BoTorch knows them."""
    try:
        value: float | None = float(func.optimal_value)
    except (NotImplementedError, AttributeError):
        value = None
    try:
        optimizer = func.optimizers[0].detach().cpu().numpy().astype(float)
    except (NotImplementedError, AttributeError):
        optimizer = None
    return value, optimizer


class SyntheticProblem(Problem):
    """A BoTorch synthetic function on the unit cube, negated to a maximisation problem."""

    negated = True

    def __init__(self, name: str, dim: int, instance_seed: int = 0, noise_std: float = 0.0) -> None:
        if name not in SPECS:
            raise ValueError(f"unknown synthetic problem {name!r}; known: {', '.join(SPECS)}")
        spec = SPECS[name]
        self.name = name
        check_dim(spec, dim)
        self._func = make_botorch_function(spec, dim)
        bounds = np.asarray(self._func.bounds.detach().cpu().numpy(), dtype=float)
        min_value, minimiser = _known_optimum(self._func)
        if spec.optimum_dims is not None and dim not in spec.optimum_dims:
            min_value = None
        super().__init__(
            dim=dim,
            bounds=bounds,
            instance_seed=instance_seed,
            optimum_value=None if min_value is None else 0.0 - min_value,
            noise_std=noise_std,
        )
        if minimiser is not None:
            self.optimizer_unit = self.to_unit(minimiser)

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            Xt = torch.as_tensor(self.to_original(X), dtype=torch.float64)
            f = self._func.evaluate_true(Xt)
        return -f.cpu().numpy().astype(float)


def check_dim(spec: SyntheticSpec, dim: int) -> None:
    """Raise ``ValueError`` naming the problem when ``dim`` is not allowed."""
    if not isinstance(dim, int | np.integer) or isinstance(dim, bool):
        raise ValueError(f"{spec.name}: dim must be an integer, got {dim!r}")
    ok = dim >= spec.min_dim and (spec.max_dim is None or dim <= spec.max_dim)
    if spec.allowed_dims is not None:
        ok = ok and dim in spec.allowed_dims
    if not ok:
        raise ValueError(f"{spec.name}: defined for dim {spec.dims}, got {dim}")


def _factory(name: str):
    def factory(dim: int, instance_seed: int = 0, noise_std: float = 0.0) -> SyntheticProblem:
        return SyntheticProblem(name, dim=dim, instance_seed=instance_seed, noise_std=noise_std)

    factory.__name__ = f"make_{name}"
    return factory


def _register_all() -> None:
    for spec in SPECS.values():
        has_opt = spec.optimum_dims is None
        dims_note = (
            ""
            if has_opt
            else f"; optimum known for d in {{{', '.join(map(str, spec.optimum_dims or ()))}}}"
        )
        info = ProblemInfo(
            name=spec.name,
            dims=spec.dims,
            source=f"botorch.test_functions.synthetic.{spec.botorch_class} (negated){dims_note}",
            kind="synthetic",
            default_dim=spec.default_dim,
            min_dim=spec.min_dim,
            max_dim=spec.max_dim,
            has_optimum=True,
            extra={"optimum_dims": list(spec.optimum_dims)} if spec.optimum_dims else {},
        )
        register(info, _factory(spec.name))


_register_all()
