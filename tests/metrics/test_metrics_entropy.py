"""OE: agreement with direct k-NN implementations, reference-code behaviour, analytic entropies."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial import cKDTree
from scipy.special import digamma

from boexplore.metrics import k_schedule, log_unit_ball_volume, observation_entropy


def uniform(T: int, d: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random((T, d))


def brute_force(X: np.ndarray, variant: str) -> np.ndarray:
    """Independent O(T^2 log T) implementation from the definitions, using a KD-tree per prefix."""
    T, d = X.shape
    out = np.full(T, np.nan)
    log_vd = math.log(math.pi ** (d / 2) / math.gamma(d / 2 + 1))
    for N in range(max(d, 2), T + 1):
        k = max(1, int(math.floor(math.log(N + 1))))
        P = X[:N]
        if variant == "reference":  # the point itself counts as a neighbour; 1e-10 jitter
            rho = cKDTree(P).query(P, [k])[0][:, -1]
            s = np.log(rho + 1e-10).sum()
        else:
            rho = cKDTree(P).query(P, [k + 1])[0][:, -1]
            s = np.log(rho).sum()
        out[N - 1] = digamma(N) - digamma(k) + log_vd + d * s / N
    return out


def test_k_schedule_table() -> None:
    """metrics-notes 3.3: k = 1 for N<=6, 2 for 7..19, 3 for 20..53, ..., 7 from 1096."""
    edges = {
        1: 1,
        6: 1,
        7: 2,
        19: 2,
        20: 3,
        53: 3,
        54: 4,
        147: 4,
        148: 5,
        402: 5,
        403: 6,
        1095: 6,
        1096: 7,
    }
    assert {n: k_schedule(n) for n in edges} == edges


@pytest.mark.parametrize("variant", ["kl", "reference"])
@pytest.mark.parametrize(("T", "d"), [(60, 2), (80, 5), (40, 12)])
def test_matches_direct_implementation(variant: str, T: int, d: int) -> None:
    X = uniform(T, d, seed=T + d)
    np.testing.assert_allclose(
        observation_entropy(X, variant), brute_force(X, variant), rtol=1e-10, atol=1e-10
    )


def test_nan_pattern_and_min_points() -> None:
    d = 5
    X = uniform(30, d, seed=1)
    for variant in ("kl", "reference"):
        h = observation_entropy(X, variant)
        assert h.shape == (30,)
        assert np.all(np.isnan(h[: d - 1])) and np.all(np.isfinite(h[d - 1 :]))
    h = observation_entropy(X, min_points=1)
    assert np.isnan(h[0]) and np.all(np.isfinite(h[1:]))  # N = 1 has no neighbour
    assert np.isfinite(observation_entropy(X, "reference", min_points=1)[0])  # self counts
    with pytest.raises(ValueError, match="min_points"):
        observation_entropy(X, min_points=0)
    with pytest.raises(ValueError, match="variant"):
        observation_entropy(X, variant="ksg")  # type: ignore[arg-type]


def test_reference_self_inclusion_gives_minus_44_in_2d() -> None:
    """metrics-notes 3.3 / test (iv): d=2, N<=6 -> psi(N)-psi(1)+ln(pi)-46.05, about -44; jump at N=7."""
    h = observation_entropy(uniform(12, 2, seed=3), "reference")
    N = np.arange(2, 7)
    expected = digamma(N) - digamma(1) + math.log(math.pi) + 2 * math.log(1e-10)
    np.testing.assert_allclose(h[1:6], expected, rtol=1e-9)
    assert h[1] == pytest.approx(-43.9, abs=0.05)
    assert np.all((h[1:6] > -44.0) & (h[1:6] < -42.5))
    assert h[6] > -5.0  # k = 2 from N = 7: the first true neighbour is used


@pytest.mark.parametrize(
    ("d", "ref_mean", "ref_sd", "kl_mean", "kl_sd"),
    [(5, 0.49, 0.09, 0.78, 0.09), (20, 5.59, 0.12, 5.97, 0.12)],
)
def test_random_search_reference_values(
    d: int, ref_mean: float, ref_sd: float, kl_mean: float, kl_sd: float
) -> None:
    """metrics-notes section 4, T = 200: last reported entry is N = 199 (official) ."""
    ref = [observation_entropy(uniform(200, d, seed=s), "reference")[198] for s in range(3)]
    kl = [observation_entropy(uniform(200, d, seed=s), "kl")[198] for s in range(3)]
    assert abs(np.mean(ref) - ref_mean) < 3 * ref_sd
    assert abs(np.mean(kl) - kl_mean) < 3 * kl_sd
    assert np.mean(kl) > np.mean(ref)  # self-inclusion biases the official estimate down


def test_uniform_low_dimension_near_zero() -> None:
    """Differential entropy of U[0,1]^d is 0; the KL estimate approaches it for large N in low d."""
    for d, tol in ((1, 0.05), (2, 0.1)):
        h = observation_entropy(uniform(2000, d, seed=d))
        assert abs(h[-1]) < tol


def test_gaussian_2d_analytic() -> None:
    """N(0.5, sigma^2 I) in d=2 with sigma = 0.04 (12 sigma from the boundary): H = ln(2 pi e sigma^2)."""
    sigma = 0.04
    X = 0.5 + sigma * np.random.default_rng(7).standard_normal((1500, 2))
    assert X.min() > 0 and X.max() < 1
    h = observation_entropy(X)[-1]
    assert h == pytest.approx(math.log(2 * math.pi * math.e * sigma**2), abs=0.1)


def test_lgamma_volume_matches_gamma_and_survives_high_d() -> None:
    for d in (1, 2, 3, 10, 100, 341):
        assert log_unit_ball_volume(d) == pytest.approx(
            math.log(math.pi ** (d / 2) / math.gamma(d / 2 + 1)), rel=1e-12
        )
    with pytest.raises(OverflowError):
        math.gamma(342 / 2 + 1)
    assert math.isfinite(log_unit_ball_volume(342)) and math.isfinite(log_unit_ball_volume(10_000))


def test_dimension_400_works() -> None:
    X = uniform(420, 400, seed=4)
    for variant in ("kl", "reference"):
        h = observation_entropy(X, variant)
        assert np.all(np.isnan(h[:399])) and np.all(np.isfinite(h[399:]))


def test_duplicates_are_counted_once_and_stay_finite() -> None:
    """metrics-notes 3.5(2): 10 repeats of one point among 99 in d=5 collapse the official estimate."""
    base = uniform(89, 5, seed=11)
    X = np.vstack([base, np.repeat(base[:1], 10, axis=0)])
    kl = observation_entropy(X)
    assert np.all(np.isfinite(kl[4:]))
    # The KL default equals the estimate on the distinct points only.
    assert kl[-1] == pytest.approx(observation_entropy(base)[-1], rel=1e-12)
    np.testing.assert_allclose(kl[89:], kl[88])
    ref = observation_entropy(X, "reference")
    assert np.all(np.isfinite(ref[4:]))  # finite thanks to the 1e-10 jitter, but collapsed
    assert ref[-1] < kl[-1] - 5.0


def test_all_identical_points() -> None:
    X = np.full((10, 2), 0.25)
    assert np.all(np.isnan(observation_entropy(X)))  # one distinct point: no neighbour distance
    ref = observation_entropy(X, "reference")
    assert np.all(np.isfinite(ref[1:]))
