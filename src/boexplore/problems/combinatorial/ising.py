"""Ising sparsification (binary domain {0,1}^24), the BOCS benchmark.

Baptista & Poloczek, "Bayesian optimization of combinatorial structures" (BOCS), ICML 2018,
Section 4.2: a zero-field Ising model P on a 4 x 4 grid of spins z in {-1, +1}^16 with the 24
nearest-neighbour couplings theta_e, p(z) proportional to exp(sum_e theta_e z_i z_j). A point
x in {0,1}^24 keeps edge e when x_e = 1; Q_x has the couplings theta_e x_e. The cost to
minimise is KL(P || Q_x) + lam ||x||_1, computed exactly by enumerating the 2^16 spin states:
KL = ln Z_Q - ln Z_P + sum_e theta_e (1 - x_e) E_P[z_i z_j]. The couplings are drawn from
``instance_seed``: |theta_e| uniform on [0.05, 5] with a random sign (BOCS's distribution);
lam = 0.01, one of BOCS's values (our choice of the three). Negated here.

Optimum: not proven (2^24 points; KL >= 0 gives the bound cost >= lam ||x||_1 only).
``best_known`` (instance seed 0) is the best value of 10 simulated-annealing runs of 20,000
evaluations each (``discrete.search.annealing_best``), run once on 2026-12-08 and checked by
``tests/discrete/test_discrete_loop.py``. The all-ones x (Q = P) costs lam * 24 = 0.24.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boexplore.problems.base import ProblemInfo
from boexplore.problems.combinatorial.base import CombinatorialProblem
from boexplore.problems.registry import register

SIDE = 4
LAMBDA = 0.01
#: Best value of our annealing runs at instance seed 0 (docstring).
BEST_KNOWN_0: float | None = -0.21358886539988922


def grid_edges(side: int = SIDE) -> np.ndarray:
    """The (i, j) spin pairs of the nearest-neighbour edges of a side x side grid (open boundary)."""
    edges = []
    for r in range(side):
        for c in range(side):
            i = r * side + c
            if c + 1 < side:
                edges.append((i, i + 1))
            if r + 1 < side:
                edges.append((i, i + side))
    return np.array(edges)


class IsingSparsification(CombinatorialProblem):
    """Negated KL(P || Q_x) + lam ||x||_1 of an edge subset x (maximised)."""

    name = "ising_sparsification"
    negated = True

    def __init__(self, dim: int = 24, instance_seed: int = 0) -> None:
        edges = grid_edges()
        if dim != len(edges):
            raise ValueError(f"{self.name}: the 4 x 4 grid has {len(edges)} edges, got dim {dim}")
        super().__init__(dim, [2] * dim, instance_seed=instance_seed)
        rng = np.random.default_rng([instance_seed, 2018, 24])
        self.theta = rng.uniform(0.05, 5.0, size=dim) * rng.choice([-1.0, 1.0], size=dim)
        states = 1.0 - 2.0 * ((np.arange(2**16)[:, None] >> np.arange(16)) & 1)
        self.pair = states[:, edges[:, 0]] * states[:, edges[:, 1]]  # (65536, 24)
        energy = self.pair @ self.theta
        shift = energy.max()
        weights = np.exp(energy - shift)
        self.log_zp = np.log(weights.sum()) + shift
        self.moments = (weights / weights.sum()) @ self.pair  # E_P[z_i z_j] per edge
        if instance_seed == 0:
            self.best_known = BEST_KNOWN_0

    def _evaluate_raw(self, X: np.ndarray) -> np.ndarray:
        out = np.empty(len(X))
        for row, x in enumerate(X):
            energy = self.pair @ (self.theta * x)
            shift = energy.max()
            log_zq = np.log(np.exp(energy - shift).sum()) + shift
            kl = log_zq - self.log_zp + float(np.sum(self.theta * (1.0 - x) * self.moments))
            out[row] = -(kl + LAMBDA * x.sum())
        return out

    def _spec_options(self) -> dict[str, Any]:
        return {}


register(
    ProblemInfo(
        name="ising_sparsification",
        dims="24",
        source="Ising sparsification (BOCS, Baptista & Poloczek 2018); binary",
        kind="combinatorial",
        default_dim=24,
        min_dim=24,
        max_dim=24,
    ),
    lambda dim, instance_seed=0: IsingSparsification(dim=dim, instance_seed=instance_seed),
)
