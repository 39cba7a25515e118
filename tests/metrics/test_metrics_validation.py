"""Bad input raises a ValueError that names the problem, for every public metric."""

from __future__ import annotations

import numpy as np
import pytest

from boexplore.metrics import (
    observation_entropy,
    otsd,
    otsd_lower_bound,
    otsd_normalized,
    otsd_tour,
    pairwise_distances,
    tour_lower_bounds,
)

METRICS = [
    otsd,
    otsd_normalized,
    otsd_tour,
    observation_entropy,
    tour_lower_bounds,
    otsd_lower_bound,
]


@pytest.mark.parametrize("fn", METRICS)
@pytest.mark.parametrize(
    ("X", "message"),
    [
        (np.zeros(5), "2-D"),
        (np.zeros((2, 3, 4)), "2-D"),
        (np.zeros((0, 3)), "T = 0"),
        (np.zeros((4, 0)), "d = 0"),
        (np.array([[0.1, np.nan], [0.2, 0.3]]), "NaN"),
        (np.array([[0.1, 0.2], [np.inf, 0.3]]), "inf"),
        (np.array([[0.1, 0.2], [1.2, 0.3]]), "unit cube"),
        (np.array([[-0.01, 0.2]]), "unit cube"),
        ([["a", "b"]], "numeric"),
    ],
)
def test_bad_points(fn, X, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn(X)


def test_bounds_argument() -> None:
    X = np.array([[2.0, -1.0], [4.0, 1.0], [3.0, 0.0]])
    box = np.array([[2.0, -1.0], [4.0, 1.0]])
    np.testing.assert_allclose(otsd(X, bounds=box), otsd((X - box[0]) / (box[1] - box[0])))
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        otsd(X, bounds=[0.0, 1.0])
    with pytest.raises(ValueError, match="upper <= lower"):
        otsd(X, bounds=[[2.0, 1.0], [4.0, 1.0]])
    with pytest.raises(ValueError, match="unit cube"):
        otsd(X * 10, bounds=box)


def test_tiny_rounding_outside_cube_is_clipped() -> None:
    X = np.array([[1.0 + 1e-12, -1e-13], [0.5, 0.5]])
    assert np.isfinite(otsd(X)).all()


@pytest.mark.parametrize("d", [2, 8, 9, 50])
def test_distances_accurate_and_duplicates_exactly_zero(d: int) -> None:
    rng = np.random.default_rng(d)
    base = rng.random((40, d))
    X = np.vstack([base, base[:5], np.clip(base[:5] + 1e-9, 0, 1)])
    D = pairwise_distances(X)
    diff = X[:, None, :] - X[None, :, :]
    exact = np.sqrt((diff**2).sum(-1))
    assert np.all(D[40:45, :5].diagonal() == 0.0)
    np.testing.assert_allclose(D, exact, rtol=1e-10, atol=1e-13)
    near = D[45:50, :5].diagonal()
    np.testing.assert_allclose(near, exact[45:50, :5].diagonal(), rtol=1e-6)
    np.testing.assert_array_equal(D, D.T)
