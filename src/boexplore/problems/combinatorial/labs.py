"""LABS: low-autocorrelation binary sequences (binary domain {0,1}^n).

A point x in {0,1}^n is the sequence s = 2x - 1 in {-1,+1}^n. Its aperiodic autocorrelations
are C_k = sum_{i=1}^{n-k} s_i s_{i+k} (k = 1 .. n-1), its energy E = sum_k C_k^2 and its merit
factor F = n^2 / (2E) (Golay 1972). The problem maximises F (as the BO literature does, e.g.
the LABS benchmark of BODi, Deshwal et al. 2023).

Optimum: the optimal energies E*(n) for 3 <= n <= 50 are those found by exhaustive
branch-and-bound search, Packebusch & Mertens, "Low autocorrelation binary sequences",
J. Phys. A 49 (2016) 165001, Table 1 (arXiv:1512.02475), transcribed into ``OPTIMAL_ENERGY``.
Our exhaustive search over all 2^(n-1) sequences with s_1 = +1 reproduced every value for
n <= 21 (run once, 2026-12-07); ``tests/problems/test_combinatorial.py`` repeats it for n <= 12
on every run. For 22 <= n <= 50 the table is quoted, not re-derived: an evaluation above F*
would expose an error in it, and the tier's runs are checked for one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boexplore.problems.base import ProblemInfo
from boexplore.problems.combinatorial.base import CombinatorialProblem
from boexplore.problems.registry import register

#: Optimal energy E*(n) (Packebusch & Mertens 2016, Table 1).
OPTIMAL_ENERGY: dict[int, int] = {
    3: 1, 4: 2, 5: 2, 6: 7, 7: 3, 8: 8, 9: 12, 10: 13, 11: 5, 12: 10, 13: 6, 14: 19,
    15: 15, 16: 24, 17: 32, 18: 25, 19: 29, 20: 26, 21: 26, 22: 39, 23: 47, 24: 36, 25: 36,
    26: 45, 27: 37, 28: 50, 29: 62, 30: 59, 31: 67, 32: 64, 33: 64, 34: 65, 35: 73, 36: 82,
    37: 86, 38: 87, 39: 99, 40: 108, 41: 108, 42: 101, 43: 109, 44: 122, 45: 118, 46: 131,
    47: 135, 48: 140, 49: 136, 50: 153,
}  # fmt: skip


def labs_energy(X: np.ndarray) -> np.ndarray:
    """Energy E of each row of a 0/1 matrix (n_points, n)."""
    S = 2.0 * np.asarray(X, dtype=float) - 1.0
    n = S.shape[1]
    E = np.zeros(S.shape[0])
    for k in range(1, n):
        E += np.einsum("ij,ij->i", S[:, :-k], S[:, k:]) ** 2
    return E


class LABS(CombinatorialProblem):
    """Merit factor of a binary sequence of length ``dim`` (maximised)."""

    name = "labs"

    def __init__(self, dim: int = 40, instance_seed: int = 0) -> None:
        energy = OPTIMAL_ENERGY.get(int(dim))
        optimum = dim * dim / (2.0 * energy) if energy else None
        super().__init__(dim, [2] * dim, instance_seed=instance_seed, optimum_value=optimum)

    def _evaluate_raw(self, X: np.ndarray) -> np.ndarray:
        return self.dim * self.dim / (2.0 * labs_energy(X))

    def _spec_options(self) -> dict[str, Any]:
        return {}


register(
    ProblemInfo(
        name="labs",
        dims="any >= 3 (optimum known for 3..50)",
        source="Packebusch & Mertens 2016 (optimal energies); binary",
        kind="combinatorial",
        default_dim=40,
        min_dim=3,
        has_optimum=True,
    ),
    lambda dim, instance_seed=0: LABS(dim=dim, instance_seed=instance_seed),
)
