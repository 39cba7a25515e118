"""OTSD: hand-computed cases, tour consistency, monotonicity, normalisation, reference values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from boexplore.metrics import otsd, otsd_normalized, otsd_tour, psi, tour_length

SQRT2 = math.sqrt(2.0)
KINDS = ("uniform", "sobol", "vertices", "maximin")


def uniform(T: int, d: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random((T, d))


def test_unit_square_corners_by_hand() -> None:
    X = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    # t=2: 2*1; t=3: (1,1) ties on both edges (cost sqrt2) -> first edge; t=4: (0,1) between x1 and x3.
    np.testing.assert_allclose(otsd(X), [0.0, 2.0, 2.0 + SQRT2, 4.0])
    np.testing.assert_array_equal(otsd_tour(X), [0, 3, 2, 1])


def test_unit_square_diagonal_first() -> None:
    X = np.array([[0, 0], [1, 1], [1, 0], [0, 1]], dtype=float)
    np.testing.assert_allclose(otsd(X), [0.0, 2 * SQRT2, 2 + SQRT2, 4.0])
    # (0,1) is cheapest on the closing edge (1,1) -> (0,0), so it goes last in the walk.
    np.testing.assert_array_equal(otsd_tour(X), [0, 2, 1, 3])


def test_repeated_point_ties_go_to_earliest_edge() -> None:
    a, b = [0.1, 0.2], [0.7, 0.9]
    X = np.array([a, b, a, b, a])
    out = otsd(X)
    assert out[0] == 0.0 and out[1] == pytest.approx(2 * math.dist(a, b))
    np.testing.assert_allclose(out[2:], out[1])  # repeats cost nothing
    # Inserting a copy of x1 costs 0 on both edges (x1->x2 and x2->x1): the first edge wins.
    np.testing.assert_array_equal(otsd_tour(X[:3]), [0, 2, 1])
    np.testing.assert_array_equal(otsd_tour(X), [0, 4, 2, 3, 1])


def test_single_point_and_two_points() -> None:
    assert otsd([[0.3, 0.3]]).tolist() == [0.0]
    X = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    np.testing.assert_allclose(otsd(X), [0.0, 2 * math.sqrt(3)])


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 30), st.integers(1, 4)), elements=st.floats(0, 1)),
)
def test_otsd_is_length_of_its_tour_and_monotone(X: np.ndarray) -> None:
    out = otsd(X)
    tour = otsd_tour(X)
    assert out[0] == 0.0
    assert sorted(tour.tolist()) == list(range(len(X))) and tour[0] == 0
    assert out[-1] == pytest.approx(tour_length(X, tour), rel=1e-12, abs=1e-12)
    assert np.all(np.diff(out) >= -1e-12)
    if len(X) >= 2:
        assert out[1] == pytest.approx(2 * np.linalg.norm(X[0] - X[1]), abs=1e-12)


def test_each_prefix_equals_tour_of_prefix() -> None:
    X = uniform(40, 3, seed=5)
    full = otsd(X)
    for t in (1, 2, 7, 23, 40):
        assert otsd(X[:t])[-1] == pytest.approx(full[t - 1], rel=1e-12)
        assert tour_length(X[:t], otsd_tour(X[:t])) == pytest.approx(full[t - 1], rel=1e-12)


def test_psi_formula() -> None:
    assert psi(1, 7) == pytest.approx(2 * math.sqrt(5))
    assert psi(2, 1) == pytest.approx(2 * math.sqrt(10) * math.sqrt(1.5))
    np.testing.assert_allclose(
        psi(10, np.array([1, 100])), 2 * math.sqrt(50) * (1.5 * np.array([1, 100])) ** 0.9
    )
    for bad in ((0, 5), (2.5, 5), (3, 0)):
        with pytest.raises(ValueError):
            psi(*bad)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", [1, 2, 5, 20])
def test_normalized_otsd_at_most_one(kind: str, d: int, seqs: dict) -> None:
    X = seqs[kind](150, d, seed=d)
    norm = otsd_normalized(X)
    assert norm[0] == 0.0
    assert np.all(norm <= 1.0)
    np.testing.assert_allclose(norm, otsd(X) / psi(d, np.arange(1, 151)))


@pytest.mark.parametrize(
    ("d", "T", "mean", "sd"),
    [(2, 100, 0.111, 0.004), (10, 200, 0.062, 0.001), (50, 200, 0.057, 0.001)],
)
def test_random_search_reference_values(d: int, T: int, mean: float, sd: float) -> None:
    """metrics-notes section 4: normalised OTSD of uniform random points at t = T."""
    vals = [otsd_normalized(uniform(T, d, seed=s))[-1] for s in range(3)]
    assert abs(np.mean(vals) - mean) < 3 * sd


def test_vertex_designs_exceed_random_search_in_high_d(seqs: dict) -> None:
    """metrics-notes section 4: d=10, T=200 vertices ~0.096 vs random ~0.062."""
    v = otsd_normalized(seqs["vertices"](200, 10, seed=1))[-1]
    r = otsd_normalized(uniform(200, 10, seed=1))[-1]
    assert v == pytest.approx(0.096, abs=0.005)
    assert v > 1.4 * r


def test_high_dimension_and_bounds_rescaling() -> None:
    X = uniform(30, 400, seed=2)
    out = otsd(X)
    assert np.all(np.isfinite(out)) and out[-1] > 0
    lo, hi = -np.ones(400), 3 * np.ones(400)
    np.testing.assert_allclose(
        otsd(lo + X * (hi - lo), bounds=np.vstack([lo, hi])), out, rtol=1e-12
    )
