"""GP posterior sampling on a finite domain, slope estimator and bootstrap intervals."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.analysis.claimkit.stats import bootstrap_ci
from boexplore.parametric.kernels import DomainKernel, posterior, sample_posterior
from boexplore.parametric.stats import entropy, loglog_slope


def test_gp_ts_samples_have_posterior_moments():
    pts = np.linspace(0, 1, 8)[:, None]
    K = DomainKernel.build(pts, 0.3).K
    idx, y, noise = np.array([1, 5, 5]), np.array([0.5, -1.0, -0.8]), 0.05
    S = sample_posterior(K, idx, y, noise, np.random.default_rng(0), n_samples=20000)
    A = np.linalg.inv(K[np.ix_(idx, idx)] + noise * np.eye(3))
    mean = K[:, idx] @ A @ y
    cov = K - K[:, idx] @ A @ K[idx, :]
    np.testing.assert_allclose(S.mean(0), mean, atol=5 * np.sqrt(np.diag(cov).max() / 20000) + 1e-9)
    np.testing.assert_allclose(np.cov(S.T), cov, atol=0.03 * np.abs(cov).max())
    m2, v2 = posterior(K, idx, y, noise)
    np.testing.assert_allclose(m2, mean, atol=1e-10)
    np.testing.assert_allclose(v2, np.diag(cov), atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(b=st.floats(0.2, 1.5), c=st.floats(0.1, 10.0), T=st.integers(20, 400))
def test_slope_exact_on_power_laws(b, c, T):
    R = c * np.arange(1, T + 1) ** b
    assert loglog_slope(R) == pytest.approx(b, abs=1e-8)


def test_slope_noisy_and_degenerate():
    rng = np.random.default_rng(0)
    t = np.arange(1, 301)
    R = 3 * np.sqrt(t) * np.exp(0.02 * rng.standard_normal(300))
    assert loglog_slope(R) == pytest.approx(0.5, abs=0.05)
    assert np.isnan(loglog_slope(np.zeros(50)))
    with pytest.raises(ValueError):
        loglog_slope(np.ones((2, 2)))


def test_bootstrap_ci_covers_and_entropy():
    v = np.random.default_rng(1).normal(2.0, 1.0, 200)
    est, lo, hi = bootstrap_ci(v, np.mean, level=0.9)
    assert lo < est < hi and lo < 2.0 < hi
    assert entropy(np.array([1, 1, 1, 1])) == pytest.approx(np.log(4))
    assert entropy(np.array([0, 5, 0])) == 0.0


def test_incumbent_fraction():
    import pandas as pd

    from boexplore.analysis.paper2.summary import incumbent_fraction

    g = pd.DataFrame(
        {
            "index": [3, 5, 5, 3, 7],
            "y": [1.0, 2.0, 0.5, 0.0, 0.0],
            "is_initial": [True, True, False, False, False],
        }
    )
    # after round 2 the incumbent is 5 (y=2): rounds 3..5 query 5 (yes), 3 (no), 7 (no)
    assert incumbent_fraction(g) == pytest.approx(1 / 3)
