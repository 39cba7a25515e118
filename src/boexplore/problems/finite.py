"""Finite-domain problems for paper 2 (randomized regularized parametric policies).

The regret theory of paper 2 is stated on a finite domain with a unique optimum,
so these problems carry their domain explicitly: ``points`` (N, d) in the unit
cube, ``values`` (N,) (the noise-free objective, standardised to mean 0 and
standard deviation 1, maximised) and ``optimum_index``. ``evaluate(X)`` returns
the value of the *nearest domain point* (Euclidean), so any unit-cube input is
accepted and domain points map to themselves.

Two objectives:

* ``nn_realizable`` - a random tanh MLP "teacher" drawn from the same
  initialisation distribution the policies use (weights N(0, s^2/fan_in),
  biases N(0, s^2)); the standardisation is folded into the output layer, so the
  objective is exactly representable by an MLP of the teacher's architecture
  (``teacher_params``). Realizable case of the theory.
* ``gp_sample`` - a Matern-5/2 GP sample on the domain (misspecified case).

Both are re-drawn (deterministically, from ``instance_seed``) until the optimum
is unique with a gap of at least ``min_gap``. Domains: a regular grid for
d = 1, a scrambled Sobol set for d >= 2.

Caveat (measured): on a dense 1-d grid the gap between the best and the
second-best point is the drop to a grid neighbour, which for a smooth interior
maximum is far below 0.05; only steep maxima at the domain edge pass. With
N = 128 every one of 8 instances of both objectives had its optimum at an edge;
with N = 32, 5 of 8 ``gp_sample`` optima were interior (``nn_realizable`` with a
tanh teacher stays at the edge). Keep 1-d domains small or lower ``min_gap``. Everything is regenerated from the
spec, so ``to_spec`` / ``from_spec`` round-trip without data files.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from boexplore.problems.base import Problem, ProblemInfo
from boexplore.problems.registry import register

MAX_DRAWS = 200


def finite_domain(dim: int, n_points: int, seed: int) -> np.ndarray:
    """Domain points (N, d): a regular grid on [0, 1] for d = 1, scrambled Sobol otherwise."""
    if n_points < 2:
        raise ValueError(f"finite domain needs at least 2 points, got {n_points}")
    if dim == 1:
        return np.linspace(0.0, 1.0, n_points)[:, None]
    from scipy.stats import qmc  # here: scipy.stats costs ~0.7 s to import (config checks)

    sampler = qmc.Sobol(d=dim, scramble=True, seed=np.random.default_rng(seed))
    with warnings.catch_warnings():  # non-power-of-2 sizes are fine for a finite domain
        warnings.simplefilter("ignore", UserWarning)
        return sampler.random(n_points)


def matern52(
    X1: np.ndarray, X2: np.ndarray, lengthscale: float, outputscale: float = 1.0
) -> np.ndarray:
    """Matern-5/2 kernel matrix between the rows of X1 and X2."""
    d = np.sqrt(np.maximum(((X1[:, None, :] - X2[None, :, :]) ** 2).sum(-1), 0.0))
    r = np.sqrt(5.0) * d / lengthscale
    return outputscale * (1.0 + r + r * r / 3.0) * np.exp(-r)


def init_mlp_params(
    rng: np.random.Generator, in_dim: int, width: int, depth: int, scale: float
) -> list[np.ndarray]:
    """Draw MLP parameters [W1, b1, ..., W_out, b_out] from the initialisation prior.

    Weights ~ N(0, scale^2 / fan_in), biases ~ N(0, scale^2); this is the prior
    Pi_0 shared with :mod:`boexplore.parametric.mlp` (same layout and order).
    """
    sizes = [in_dim] + [width] * depth + [1]
    params: list[np.ndarray] = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        params.append(rng.normal(0.0, scale / np.sqrt(fan_in), size=(fan_in, fan_out)))
        params.append(rng.normal(0.0, scale, size=(fan_out,)))
    return params


def mlp_forward(params: list[np.ndarray], X: np.ndarray) -> np.ndarray:
    """tanh MLP output (n,) for parameters laid out as in ``init_mlp_params``."""
    h = np.asarray(X, dtype=float)
    n_layers = len(params) // 2
    for i in range(n_layers):
        h = h @ params[2 * i] + params[2 * i + 1]
        if i < n_layers - 1:
            h = np.tanh(h)
    return h[:, 0]


def optimum_gap(values: np.ndarray) -> float:
    """Gap between the best and second-best value."""
    top = np.sort(values)[-2:]
    return float(top[1] - top[0])


class FiniteProblem(Problem):
    """Base class: a fixed set of domain points with known values (maximised)."""

    def __init__(
        self,
        dim: int,
        instance_seed: int = 0,
        n_points: int = 128,
        min_gap: float = 0.05,
        noise_std: float = 0.0,
    ) -> None:
        if dim < 1:
            raise ValueError(f"{self.name}: dim must be >= 1, got {dim}")
        if n_points < 2:
            raise ValueError(f"{self.name}: n_points must be >= 2, got {n_points}")
        if min_gap < 0:
            raise ValueError(f"{self.name}: min_gap must be >= 0, got {min_gap}")
        self.n_points = int(n_points)
        self.min_gap = float(min_gap)
        self.points = finite_domain(dim, self.n_points, instance_seed)
        rng = np.random.default_rng([instance_seed, 7919])
        for _ in range(MAX_DRAWS):
            values = self._draw_values(rng)
            values = (values - values.mean()) / max(values.std(), 1e-12)
            if optimum_gap(values) >= self.min_gap:
                break
        else:
            raise ValueError(
                f"{self.name}: no draw with optimum gap >= {min_gap} in {MAX_DRAWS} attempts"
            )
        self.values = values
        self.optimum_index = int(np.argmax(values))
        self.gap = optimum_gap(values)
        bounds = np.stack([np.zeros(dim), np.ones(dim)])
        super().__init__(dim, bounds, instance_seed, float(values.max()), noise_std)

    def _draw_values(self, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def nearest_index(self, X: np.ndarray) -> np.ndarray:
        """Index of the nearest domain point for each row of X (unit cube)."""
        d2 = ((X[:, None, :] - self.points[None, :, :]) ** 2).sum(-1)
        return np.argmin(d2, axis=1)

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        return self.values[self.nearest_index(X)]

    def _spec_options(self) -> dict[str, Any]:
        return {"n_points": self.n_points, "min_gap": self.min_gap}


class NNRealizableProblem(FiniteProblem):
    """Objective = a random tanh-MLP teacher (standardised), i.e. realizable by the policy."""

    name = "nn_realizable"

    def __init__(
        self,
        dim: int,
        instance_seed: int = 0,
        *,
        teacher_width: int = 32,
        teacher_depth: int = 2,
        teacher_scale: float = 1.0,
        **base: Any,
    ) -> None:
        if teacher_width < 1 or teacher_depth < 1 or teacher_scale <= 0:
            raise ValueError(
                f"nn_realizable: need teacher_width >= 1, teacher_depth >= 1, teacher_scale > 0 "
                f"(got {teacher_width}, {teacher_depth}, {teacher_scale})"
            )
        self.teacher_width = int(teacher_width)
        self.teacher_depth = int(teacher_depth)
        self.teacher_scale = float(teacher_scale)
        self._raw_params: list[np.ndarray] = []
        super().__init__(dim, instance_seed, **base)

    def _draw_values(self, rng: np.random.Generator) -> np.ndarray:
        self._raw_params = init_mlp_params(
            rng, self.points.shape[1], self.teacher_width, self.teacher_depth, self.teacher_scale
        )
        return mlp_forward(self._raw_params, self.points)

    def teacher_params(self) -> list[np.ndarray]:
        """Teacher MLP parameters with the standardisation folded into the output layer.

        ``mlp_forward(teacher_params(), points)`` equals ``values`` (up to rounding).
        """
        raw = mlp_forward(self._raw_params, self.points)
        mean, std = raw.mean(), max(raw.std(), 1e-12)
        params = [p.copy() for p in self._raw_params]
        params[-2] = params[-2] / std
        params[-1] = (params[-1] - mean) / std
        return params

    def _spec_options(self) -> dict[str, Any]:
        return {
            **super()._spec_options(),
            "teacher_width": self.teacher_width,
            "teacher_depth": self.teacher_depth,
            "teacher_scale": self.teacher_scale,
        }


class GPSampleProblem(FiniteProblem):
    """Objective = a Matern-5/2 GP sample on the domain (misspecified for the NN policy)."""

    name = "gp_sample"

    def __init__(
        self, dim: int, instance_seed: int = 0, *, lengthscale: float = 0.2, **base: Any
    ) -> None:
        if lengthscale <= 0:
            raise ValueError(f"gp_sample: lengthscale must be > 0, got {lengthscale}")
        self.lengthscale = float(lengthscale)
        super().__init__(dim, instance_seed, **base)

    def _draw_values(self, rng: np.random.Generator) -> np.ndarray:
        K = matern52(self.points, self.points, self.lengthscale)
        L = np.linalg.cholesky(K + 1e-8 * np.eye(len(K)))
        return L @ rng.standard_normal(len(K))

    def _spec_options(self) -> dict[str, Any]:
        return {**super()._spec_options(), "lengthscale": self.lengthscale}


def _factory(cls: type[FiniteProblem]):
    def make(dim: int, instance_seed: int = 0, **options: Any) -> FiniteProblem:
        return cls(dim=dim, instance_seed=instance_seed, **options)

    return make


for _cls, _source in (
    (
        NNRealizableProblem,
        "paper 2 (E1-E3): random tanh-MLP teacher on a finite domain (grid / Sobol)",
    ),
    (GPSampleProblem, "paper 2 (E1): Matern-5/2 GP sample (lengthscale 0.2) on a finite domain"),
):
    register(
        ProblemInfo(
            name=_cls.name,
            dims="any >= 1 (paper 2 uses 1, 2)",
            source=_source,
            kind="finite",
            default_dim=1,
            min_dim=1,
            has_optimum=True,
        ),
        _factory(_cls),
    )
