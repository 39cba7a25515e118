"""Fixtures for the metric tests: point sequences (random, Sobol, hypercube vertices, greedy maximin)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import qmc


def uniform(T: int, d: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random((T, d))


def sobol(T: int, d: int, seed: int = 0) -> np.ndarray:
    m = int(np.ceil(np.log2(max(T, 2))))
    return qmc.Sobol(d, scramble=True, seed=seed).random_base2(m)[:T]


def vertices(T: int, d: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2, size=(T, d)).astype(float)


def maximin(T: int, d: int, seed: int = 0, pool: int = 2000) -> np.ndarray:
    """Greedy farthest-point sequence from a random candidate pool."""
    cand = np.random.default_rng(seed).random((pool, d))
    chosen = [0]
    dmin = np.linalg.norm(cand - cand[0], axis=1)
    for _ in range(T - 1):
        j = int(np.argmax(dmin))
        chosen.append(j)
        dmin = np.minimum(dmin, np.linalg.norm(cand - cand[j], axis=1))
    return cand[chosen]


SEQUENCES = {"uniform": uniform, "sobol": sobol, "vertices": vertices, "maximin": maximin}


@pytest.fixture
def seqs() -> dict:
    """Generators ``f(T, d, seed)`` of test point sequences, by name."""
    return SEQUENCES
