"""ExplorationTracker gives the batch numbers, point by point or in chunks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from boexplore.metrics import (
    ExplorationTracker,
    observation_entropy,
    otsd,
    otsd_normalized,
    otsd_tour,
    psi,
    tour_lower_bounds,
)

# Coordinates from a coarse grid make repeats and exact ties likely; free floats cover the rest.
coords = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.floats(0, 1))


def assert_same(a: np.ndarray, b: np.ndarray) -> None:
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(
    X=arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 4)), elements=coords),
    chunk=st.integers(1, 7),
)
def test_tracker_equals_batch(X: np.ndarray, chunk: int) -> None:
    tr = ExplorationTracker(X.shape[1], track_bounds=True, capacity=2)
    for s in range(0, len(X), chunk):
        block = X[s : s + chunk]
        tr.update(block[0] if len(block) == 1 else block)
    assert len(tr) == len(X)
    assert_same(tr.otsd_history, otsd(X))
    assert_same(tr.otsd_normalized_history, otsd_normalized(X))
    assert_same(tr.psi_history, psi(X.shape[1], np.arange(1, len(X) + 1)))
    assert_same(tr.entropy_history, observation_entropy(X))
    assert_same(tr.entropy_reference_history, observation_entropy(X, "reference"))
    for key, values in tour_lower_bounds(X).items():
        assert_same(tr.lower_bound_history()[key], values)
    np.testing.assert_array_equal(tr.tour, otsd_tour(X))
    assert tr.otsd == tr.otsd_history[-1]
    np.testing.assert_array_equal(tr.points, X)


def test_tracker_grows_neighbour_lists_when_k_increases() -> None:
    X = np.random.default_rng(2).random((160, 3))
    tr = ExplorationTracker(3, k_max=1, capacity=1)  # k reaches 5 by N = 148: several rebuilds
    for x in X:
        tr.update(x)
    assert_same(tr.entropy_history, observation_entropy(X))
    assert_same(tr.entropy_reference_history, observation_entropy(X, "reference"))
    assert tr.entropy == pytest.approx(observation_entropy(X)[-1])
    assert tr.entropy_reference == pytest.approx(observation_entropy(X, "reference")[-1])


def test_tracker_bounds_rescaling_and_properties() -> None:
    rng = np.random.default_rng(4)
    X = rng.random((25, 2))
    box = np.array([[-5.0, 10.0], [5.0, 20.0]])
    tr = ExplorationTracker(2, bounds=box, min_points=1)
    tr.update(box[0] + X * (box[1] - box[0]))
    assert tr.otsd == pytest.approx(otsd(X)[-1], rel=1e-12)
    assert tr.otsd_normalized == pytest.approx(otsd_normalized(X)[-1], rel=1e-12)
    assert_same(tr.entropy_history, observation_entropy(X, min_points=1))
    with pytest.raises(ValueError, match="track_bounds"):
        _ = tr.lower_bound


def test_tracker_errors() -> None:
    tr = ExplorationTracker(3)
    with pytest.raises(ValueError, match="no points"):
        _ = tr.otsd
    with pytest.raises(ValueError, match="shape"):
        tr.update(np.zeros(2))
    with pytest.raises(ValueError, match="NaN"):
        tr.update([0.1, np.nan, 0.2])
    with pytest.raises(ValueError, match="unit cube"):
        tr.update([0.1, 1.5, 0.2])
    with pytest.raises(ValueError, match="positive integer"):
        ExplorationTracker(0)
    assert len(tr) == 0  # failed updates add nothing
