"""Weighted MaxSAT on a planted random 3-SAT instance (binary domain {0,1}^n).

The instance is generated from ``instance_seed`` (no file to ship): a hidden assignment z is
drawn uniformly, then ``round(clause_ratio * n)`` clauses of 3 distinct variables with random
signs are drawn uniformly *among the clauses z satisfies* (a "planted" instance, the
construction of Achlioptas, Jia & Moore, "Hiding satisfying assignments", AAAI 2005), each with
a weight drawn uniformly from [1, 10]. The objective is the satisfied weight divided by the
total weight (maximised). Because z satisfies every clause, the optimum is exactly 1 and z is
a maximiser: the optimum is proven by construction, not by a solver. Other assignments may
satisfy every clause too; the tests check by brute force at n = 12 that none exceeds 1 and that
z reaches it.

The weighted MaxSAT benchmarks of the BO literature (e.g. MaxSAT60 in Bounce, Papenmeier et al.
2023) use instances of the MaxSAT evaluations; ours is a generated stand-in of the same size
(n = 60, clause ratio 4.2 near the 3-SAT threshold), our choice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boexplore.problems.base import ProblemInfo
from boexplore.problems.combinatorial.base import CombinatorialProblem
from boexplore.problems.registry import register


def planted_instance(
    n: int, n_clauses: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(variables (m, 3), signs (m, 3) with 1 = positive literal, weights (m,), planted z (n,))."""
    rng = np.random.default_rng([seed, 55, n, n_clauses])
    z = rng.integers(0, 2, size=n)
    variables = np.empty((n_clauses, 3), dtype=np.int64)
    signs = np.empty((n_clauses, 3), dtype=np.int64)
    i = 0
    while i < n_clauses:
        var = rng.choice(n, size=3, replace=False)
        sign = rng.integers(0, 2, size=3)
        if np.any(z[var] == sign):  # a literal is true under z: keep the clause
            variables[i], signs[i] = var, sign
            i += 1
    weights = rng.uniform(1.0, 10.0, size=n_clauses)
    return variables, signs, weights, z


class PlantedMaxSAT(CombinatorialProblem):
    """Fraction of the clause weight an assignment satisfies (maximised, optimum 1)."""

    name = "maxsat_planted"

    def __init__(self, dim: int = 60, instance_seed: int = 0, clause_ratio: float = 4.2) -> None:
        self.clause_ratio = float(clause_ratio)
        if not self.clause_ratio > 0:
            raise ValueError(f"{self.name}: clause_ratio must be > 0, got {clause_ratio}")
        super().__init__(dim, [2] * dim, instance_seed=instance_seed, optimum_value=1.0)
        m = max(1, round(self.clause_ratio * dim))
        self.variables, self.signs, self.weights, z = planted_instance(dim, m, instance_seed)
        self.optimizer_raw = z.astype(float)
        self.optimizer_unit = self.raw_to_unit(self.optimizer_raw)

    def _evaluate_raw(self, X: np.ndarray) -> np.ndarray:
        literals = X[:, self.variables] == self.signs[None, :, :]  # (n, m, 3)
        satisfied = literals.any(axis=2)
        return satisfied.astype(float) @ self.weights / self.weights.sum()

    def _spec_options(self) -> dict[str, Any]:
        return {"clause_ratio": self.clause_ratio}


register(
    ProblemInfo(
        name="maxsat_planted",
        dims="any >= 3",
        source="planted weighted 3-SAT (Achlioptas et al. 2005), generated; binary",
        kind="combinatorial",
        default_dim=60,
        min_dim=3,
        has_optimum=True,
    ),
    lambda dim, instance_seed=0, clause_ratio=4.2: PlantedMaxSAT(
        dim=dim, instance_seed=instance_seed, clause_ratio=clause_ratio
    ),
)
