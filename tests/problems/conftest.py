"""Shared fixtures for the problem tests: names of the problems this part owns."""

from __future__ import annotations

import numpy as np
import pytest

SYNTHETIC = [
    "branin",
    "hartmann",
    "ackley",
    "levy",
    "rosenbrock",
    "griewank",
    "styblinski_tang",
    "michalewicz",
]
EMBEDDED = ["hartmann6_embedded", "branin_embedded"]
OWN = SYNTHETIC + EMBEDDED


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise ``synthetic_name`` / ``embedded_name`` / ``own_name`` over our problems."""
    for fixture, names in (
        ("synthetic_name", SYNTHETIC),
        ("embedded_name", EMBEDDED),
        ("own_name", OWN),
    ):
        if fixture in metafunc.fixturenames:
            metafunc.parametrize(fixture, names)


@pytest.fixture(autouse=True)
def _single_thread():
    """Keep torch on one thread: the test machine is shared."""
    import torch

    torch.set_num_threads(1)


@pytest.fixture
def unit_points():
    """``unit_points(d, n, seed)``: n seeded uniform points in [0,1]^d."""

    def make(d: int, n: int = 5, seed: int = 0) -> np.ndarray:
        return np.random.default_rng(seed).random((n, d))

    return make
