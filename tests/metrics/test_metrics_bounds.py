"""Tour bounds: exact optimum (Held-Karp) sits between the heuristic OTSD and every lower bound."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.spatial.distance import cdist, pdist

from boexplore.metrics import held_karp, mst_weights, otsd, psi, tour_length, tour_lower_bounds


def brute_force_opt(X: np.ndarray) -> float:
    n = len(X)
    if n < 2:
        return 0.0
    return min(tour_length(X, (0, *p)) for p in itertools.permutations(range(1, n)))


def test_held_karp_square_and_brute_force() -> None:
    sq = np.array([[0, 0], [1, 1], [1, 0], [0, 1]], dtype=float)
    length, tour = held_karp(sq)
    assert length == pytest.approx(4.0) and tour_length(sq, tour) == pytest.approx(4.0)
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 5, 7):
        X = rng.random((n, 3))
        length, tour = held_karp(X)
        assert sorted(tour.tolist()) == list(range(n))
        assert length == pytest.approx(brute_force_opt(X), rel=1e-12)
        assert tour_length(X, tour) == pytest.approx(length, rel=1e-12)
    with pytest.raises(ValueError, match="at most"):
        held_karp(rng.random((13, 2)))


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 9), st.integers(1, 3)), elements=st.floats(0, 1))
)
def test_heuristic_ge_optimum_ge_lower_bounds(X: np.ndarray) -> None:
    heur = otsd(X)
    lb = tour_lower_bounds(X)
    for t in range(1, len(X) + 1):
        opt, _ = held_karp(X[:t])
        tol = 1e-9
        assert heur[t - 1] >= opt - tol
        assert heur[t - 1] <= psi(X.shape[1], t) + tol
        for key in ("mst", "diam", "nn", "lb"):
            assert opt >= lb[key][t - 1] - tol, key
    np.testing.assert_allclose(lb["lb"], np.maximum.reduce([lb["mst"], lb["diam"], lb["nn"]]))


def test_bounds_match_direct_computation_per_prefix() -> None:
    rng = np.random.default_rng(3)
    X = rng.random((60, 4))
    X[30:35] = X[:5]  # exact duplicates: zero-weight edges must not break the MST
    lb = tour_lower_bounds(X)
    for t in range(2, 61):
        P = np.unique(X[:t], axis=0)  # scipy drops zero-weight edges, so dedupe first
        assert lb["mst"][t - 1] == pytest.approx(
            minimum_spanning_tree(cdist(P, P)).sum(), rel=1e-12
        )
        assert lb["diam"][t - 1] == pytest.approx(2 * pdist(X[:t]).max(), rel=1e-12)
        D = cdist(X[:t], X[:t])
        np.fill_diagonal(D, np.inf)
        assert lb["nn"][t - 1] == pytest.approx(D.min(axis=1).sum(), rel=1e-12)
    np.testing.assert_allclose(mst_weights(X), lb["mst"])
    assert lb["mst"][0] == lb["nn"][0] == lb["diam"][0] == 0.0


def test_nn_bound_form_is_tight_for_two_points() -> None:
    """sum_i nn_i equals OPT for two points, so 2 * sum nn (a tempting form) would be invalid."""
    X = np.array([[0.1, 0.1], [0.4, 0.5]])
    lb = tour_lower_bounds(X)
    opt = held_karp(X)[0]
    assert lb["nn"][1] == pytest.approx(opt) == pytest.approx(2 * math.dist(X[0], X[1]))
    assert 2 * lb["nn"][1] > opt


def test_bounds_on_longer_random_sequence() -> None:
    X = np.random.default_rng(5).random((300, 6))
    lb = tour_lower_bounds(X)
    heur = otsd(X)
    assert np.all(lb["lb"] <= heur + 1e-12)
    assert np.all(np.diff(lb["mst"]) >= -1e-12) and np.all(np.diff(lb["diam"]) >= 0)
    assert 1.0 < heur[-1] / lb["lb"][-1] < 2.0
