"""Pest control (categorical domain {0..4}^n), the COMBO benchmark.

Oh, Tomczak, Gavves & Welling, "Combinatorial Bayesian optimization using the graph Cartesian
product" (COMBO), NeurIPS 2019, Section 5.2: n stations along a chain; at each, choose no
pesticide (0) or one of four (1..4). The pest fraction spreads as P' = P + s (1 - P) with
s ~ Beta(1, 17/3) where nothing is applied, and falls as P' = (1 - r) P with control rate
r ~ Beta(1, b_j) where pesticide j is applied; the pests grow tolerant, so each use of j raises
b_j by t_j / n. Pesticide j costs p_j, discounted by up to a fraction m_j in proportion to how
often j is used over the whole plan. The cost to minimise is the price paid plus, per stage,
the fraction of Monte-Carlo samples whose pest fraction exceeds U = 0.1; P_0 ~ Beta(1, 30).
Constants (COMBO's as described in the paper, restated here): p = (1, 0.8, 0.7, 0.5),
m = (0.2, 0.3, 0.3, 0), b = (2/7, 3/7, 3/7, 5/7), t = (1/7, 2.5/7, 2/7, 0.5/7), 100 samples.
The random draws are fixed by ``instance_seed`` (common random numbers), so the objective is
deterministic. This is our implementation from the paper's description, not COMBO's code:
its values need not equal COMBO's to the digit. Negated here.

Optimum: not proven (5^25 points). ``best_known`` (n = 25, instance seed 0) is the best value of 10
simulated-annealing runs of 20,000 evaluations each (``discrete.search.annealing_best``), run
once on 2026-12-07 and checked by ``tests/discrete/test_discrete_loop.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boexplore.problems.base import ProblemInfo
from boexplore.problems.combinatorial.base import CombinatorialProblem
from boexplore.problems.registry import register

U_LIMIT, N_SAMPLES = 0.1, 100
PRICE = np.array([1.0, 0.8, 0.7, 0.5])
MAX_DISCOUNT = np.array([0.2, 0.3, 0.3, 0.0])
CONTROL_BETA = np.array([2.0, 3.0, 3.0, 5.0]) / 7.0
TOLERANCE_RATE = np.array([1.0, 2.5, 2.0, 0.5]) / 7.0
#: Best value of our simulated-annealing runs at n = 25, instance seed 0 (docstring).
BEST_KNOWN_25 = -11.9616


class PestControl(CombinatorialProblem):
    """Negated pest-control cost of a pesticide plan (maximised)."""

    name = "pest_control"
    negated = True

    def __init__(self, dim: int = 25, instance_seed: int = 0) -> None:
        super().__init__(dim, [5] * dim, instance_seed=instance_seed)
        rng = np.random.default_rng([instance_seed, 2019, dim])
        self.p0 = rng.beta(1.0, 30.0, size=N_SAMPLES)
        self.spread = rng.beta(1.0, 17.0 / 3.0, size=(N_SAMPLES, dim))
        # Control rates by inverse-CDF of one uniform per (sample, stage): Beta(1, b) has
        # CDF 1 - (1 - r)^b, so r = 1 - (1 - u)^(1/b) follows the tolerance-raised b exactly.
        self.control_u = rng.random(size=(N_SAMPLES, dim))
        if dim == 25 and instance_seed == 0:
            self.best_known = BEST_KNOWN_25

    def _evaluate_raw(self, X: np.ndarray) -> np.ndarray:
        codes = X.astype(np.int64)
        out = np.empty(len(codes))
        for row, plan in enumerate(codes):
            out[row] = -self._cost(plan)
        return out

    def _cost(self, plan: np.ndarray) -> float:
        n = self.dim
        beta = CONTROL_BETA.copy()
        uses = np.bincount(plan, minlength=5)[1:]
        P = self.p0.copy()
        paid = above = 0.0
        for i, choice in enumerate(plan):
            above += float(np.mean(P > U_LIMIT))
            if choice == 0:
                P = P + self.spread[:, i] * (1.0 - P)
                continue
            j = choice - 1
            rate = 1.0 - (1.0 - self.control_u[:, i]) ** (1.0 / beta[j])
            P = (1.0 - rate) * P
            paid += PRICE[j] * (1.0 - MAX_DISCOUNT[j] * uses[j] / n)
            beta[j] += TOLERANCE_RATE[j] / n
        return paid + above

    def _spec_options(self) -> dict[str, Any]:
        return {}


register(
    ProblemInfo(
        name="pest_control",
        dims="any >= 2",
        source="pest control (COMBO, Oh et al. 2019), our implementation; categorical(5)",
        kind="combinatorial",
        default_dim=25,
        min_dim=2,
    ),
    lambda dim, instance_seed=0: PestControl(dim=dim, instance_seed=instance_seed),
)
