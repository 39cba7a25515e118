"""Mixed Ackley: Ackley's function on binary and continuous variables.

The mixed benchmark "Ackley53" of Bounce (Papenmeier, Nardi & Poloczek, "Bounce: reliable
high-dimensional Bayesian optimization for combinatorial and mixed spaces", NeurIPS 2023):
Ackley's function f(x) = -a exp(-b sqrt(mean x_j^2)) - exp(mean cos(c x_j)) + a + e
(a = 20, b = 0.2, c = 2 pi) on ``dim - n_continuous`` binary variables in {0, 1} and
``n_continuous`` continuous ones. Minimised, so negated here. Optimum: f = 0 at x = 0 (every
term of the sum is minimal there), i.e. 0 in the maximisation convention. The continuous range
[0, 1] is our choice (it puts the optimum on the boundary of the continuous block, as the
binary block's 0 is on its boundary).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boexplore.problems.base import ProblemInfo
from boexplore.problems.combinatorial.base import CombinatorialProblem
from boexplore.problems.registry import register


def ackley(X: np.ndarray, a: float = 20.0, b: float = 0.2, c: float = 2.0 * np.pi) -> np.ndarray:
    """Ackley's function of each row of X (minimum 0 at the origin)."""
    X = np.asarray(X, dtype=float)
    return (
        -a * np.exp(-b * np.sqrt(np.mean(X * X, axis=1)))
        - np.exp(np.mean(np.cos(c * X), axis=1))
        + a
        + np.e
    )


class MixedAckley(CombinatorialProblem):
    """Negated Ackley on ``dim - n_continuous`` binary and ``n_continuous`` [0, 1] variables."""

    name = "mixed_ackley"
    negated = True

    def __init__(self, dim: int = 53, instance_seed: int = 0, n_continuous: int = 3) -> None:
        self.n_continuous = int(n_continuous)
        if not 1 <= self.n_continuous < dim:
            raise ValueError(
                f"{self.name}: n_continuous must be in 1..dim-1, got {n_continuous} (dim {dim})"
            )
        levels = [2] * (dim - self.n_continuous) + [None] * self.n_continuous
        super().__init__(dim, levels, instance_seed=instance_seed, optimum_value=0.0)
        self.optimizer_raw = np.zeros(dim)
        self.optimizer_unit = np.where(self._finite, 0.25, 0.0)  # the 0-cell / the lower bound

    def _evaluate_raw(self, X: np.ndarray) -> np.ndarray:
        return -ackley(X)

    def _spec_options(self) -> dict[str, Any]:
        return {"n_continuous": self.n_continuous}


register(
    ProblemInfo(
        name="mixed_ackley",
        dims="any >= 2",
        source="Ackley53 of Bounce (Papenmeier et al. 2023); binary + continuous",
        kind="combinatorial",
        default_dim=53,
        min_dim=2,
        has_optimum=True,
    ),
    lambda dim, instance_seed=0, n_continuous=3: MixedAckley(
        dim=dim, instance_seed=instance_seed, n_continuous=n_continuous
    ),
)
