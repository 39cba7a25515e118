"""Contamination control (binary domain {0,1}^n), the BOCS benchmark.

A food supply chain of n stages (Hu, Hu, Xu, Wang & Cao, "Contamination control in food supply
chain", Winter Simulation Conference 2010), as a black box of Baptista & Poloczek, "Bayesian
optimization of combinatorial structures" (BOCS), ICML 2018, Section 4.3. x_i = 1 runs a
prevention step (cost 1) at stage i. The contaminated fraction Z_i evolves as
Z_i = Lambda_i (1 - x_i) (1 - Z_{i-1}) + (1 - Gamma_i x_i) Z_{i-1} (a prevention step stops
new contamination and restores a fraction Gamma_i), with Z_0 ~ Beta(1, 30), contamination
rates Lambda_i ~ Beta(1, 17/3) and restoration rates Gamma_i ~ Beta(1, 3/7). The cost to minimise
is sum_i [x_i + (rho / T) sum_t 1{Z_{t,i} > U}] + lam ||x||_1 over T Monte-Carlo samples, with
U = 0.1, rho = 1, T = 100, lam = 0.01 (BOCS's values; BOCS also subtracts the constant
(1 - epsilon) per stage, which moves no comparison and is left out here). The samples are
drawn once from ``instance_seed``, so the objective is deterministic. Negated here.

Optimum: not proven (2^25 points). ``best_known`` (n = 25, instance seed 0) is the best value of 10
simulated-annealing runs of 20,000 evaluations each (``discrete.search.annealing_best``), run
once on 2026-12-07 and checked by ``tests/discrete/test_discrete_loop.py``; a value above it in a trace is a new best.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boexplore.problems.base import ProblemInfo
from boexplore.problems.combinatorial.base import CombinatorialProblem
from boexplore.problems.registry import register

#: BOCS's constants: threshold, penalty weight, Monte-Carlo samples, L1 weight.
U_LIMIT, RHO, N_SAMPLES, LAMBDA = 0.1, 1.0, 100, 0.01
#: Best value of our simulated-annealing runs at n = 25, instance seed 0 (docstring).
BEST_KNOWN_25 = -22.61


class Contamination(CombinatorialProblem):
    """Negated contamination-control cost of a prevention plan (maximised)."""

    name = "contamination"
    negated = True

    def __init__(self, dim: int = 25, instance_seed: int = 0) -> None:
        super().__init__(dim, [2] * dim, instance_seed=instance_seed)
        rng = np.random.default_rng([instance_seed, 2018, dim])
        self.z0 = rng.beta(1.0, 30.0, size=N_SAMPLES)
        self.contamination_rate = rng.beta(1.0, 17.0 / 3.0, size=(N_SAMPLES, dim))
        self.restoration_rate = rng.beta(1.0, 3.0 / 7.0, size=(N_SAMPLES, dim))
        if dim == 25 and instance_seed == 0:
            self.best_known = BEST_KNOWN_25

    def _evaluate_raw(self, X: np.ndarray) -> np.ndarray:
        n_points = X.shape[0]
        Z = np.broadcast_to(self.z0, (n_points, N_SAMPLES)).copy()
        penalty = np.zeros(n_points)
        for i in range(self.dim):
            lam = self.contamination_rate[None, :, i]
            gam = self.restoration_rate[None, :, i]
            u = X[:, i : i + 1]
            Z = lam * (1.0 - u) * (1.0 - Z) + (1.0 - gam * u) * Z
            penalty += RHO * np.mean(Z > U_LIMIT, axis=1)
        cost = X.sum(axis=1) + penalty + LAMBDA * X.sum(axis=1)
        return -cost

    def _spec_options(self) -> dict[str, Any]:
        return {}


register(
    ProblemInfo(
        name="contamination",
        dims="any >= 2",
        source="contamination control (Hu et al. 2010; BOCS, Baptista & Poloczek 2018); binary",
        kind="combinatorial",
        default_dim=25,
        min_dim=2,
    ),
    lambda dim, instance_seed=0: Contamination(dim=dim, instance_seed=instance_seed),
)
