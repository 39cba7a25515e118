import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.analysis.claimkit.stats import (
    adjust_pvalues,
    benjamini_hochberg,
    binomial_ci,
    bootstrap_ci,
    holm,
    paired_greater_pvalue,
    paired_t_greater_pvalue,
)


def test_holm_known_values():
    p = [0.01, 0.04, 0.03, 0.005]
    np.testing.assert_allclose(holm(p), [0.03, 0.06, 0.06, 0.02])


def test_bh_known_values():
    p = [0.01, 0.04, 0.03, 0.005]
    np.testing.assert_allclose(benjamini_hochberg(p), [0.02, 0.04, 0.04, 0.02])


@settings(deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_adjusted_pvalues_dominate_raw_and_holm_dominates_bh(p):
    h, b = holm(p), benjamini_hochberg(p)
    assert np.all(h >= np.asarray(p) - 1e-12) and np.all(h <= 1)
    assert np.all(b >= np.asarray(p) - 1e-12)
    assert np.all(h >= b - 1e-12)


def test_unknown_correction_raises():
    with pytest.raises(ValueError, match="unknown p-value correction"):
        adjust_pvalues([0.1], "bonferroni-ish")


def test_bootstrap_ci_contains_point_and_is_seeded():
    x = np.random.default_rng(0).normal(size=50)
    a = bootstrap_ci(x, np.median, n_boot=300, seed=3)
    b = bootstrap_ci(x, np.median, n_boot=300, seed=3)
    assert a == b and a[1] <= a[0] <= a[2]
    assert np.isnan(bootstrap_ci([np.nan])[0])
    assert bootstrap_ci([2.0]) == (2.0, 2.0, 2.0)


def test_paired_tests_direction():
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    b = a - np.array([0.5, 0.4, 0.6, 0.5, 0.45, 0.55])
    assert paired_t_greater_pvalue(a, b) < 0.001
    assert paired_t_greater_pvalue(b, a) > 0.99
    assert paired_greater_pvalue(a, b) == pytest.approx(1 / 64)
    assert paired_t_greater_pvalue(a, a) == 1.0
    assert paired_t_greater_pvalue(a + 1, a) == 0.0
    with pytest.raises(ValueError, match="equal shapes"):
        paired_t_greater_pvalue(a, b[:3])


def test_binomial_ci():
    v, lo, hi = binomial_ci(5, 10)
    assert v == 0.5 and lo < 0.5 < hi
    assert np.isnan(binomial_ci(0, 0)[0])


def test_t_interval_matches_scipy_and_needs_two_differences():
    from scipy import stats as sps

    from boexplore.analysis.claimkit.stats import t_interval

    d = np.array([0.3, -0.1, 0.4, 0.2, np.nan])
    mean, lo, hi = t_interval(d)
    ref = sps.t.interval(0.95, 3, loc=d[:4].mean(), scale=sps.sem(d[:4]))
    assert mean == pytest.approx(0.2) and (lo, hi) == pytest.approx(ref)
    assert np.isnan(t_interval(np.array([1.0]))[1]) and np.isnan(t_interval(np.array([]))[0])
