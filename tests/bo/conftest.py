"""Shared fixtures for BO tests: tiny optimiser settings and small problems."""

from __future__ import annotations

import numpy as np
import pytest

# Tiny optimiser settings keep every test fast (quick suite < 60 s on one core).
FAST = {"num_restarts": 2, "raw_samples": 32, "mc_samples": 16, "acq_maxiter": 20}


@pytest.fixture(autouse=True)
def _quiet(quiet_single_thread):
    yield


class Quadratic:
    """Stand-in problem with the Problem interface: -(||x - 0.3||^2), optimum 0."""

    name = "quadratic"
    optimum_value = 0.0

    def __init__(self, dim: int = 2, nan_every: int = 0) -> None:
        self.dim = dim
        self.nan_every = nan_every
        self.calls = 0

    def evaluate(self, X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(np.asarray(X, dtype=float))
        assert X.shape[1] == self.dim and X.min() >= 0 and X.max() <= 1
        y = -np.sum((X - 0.3) ** 2, axis=1)
        if self.nan_every:
            for i in range(len(y)):
                self.calls += 1
                if self.calls % self.nan_every == 0:
                    y[i] = np.nan
        return y


@pytest.fixture
def fast() -> dict:
    return dict(FAST)


@pytest.fixture
def branin():
    from boexplore.problems import get_problem

    return get_problem("branin", 2)
