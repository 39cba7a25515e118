"""OTSD stop rule and the incumbent-only control."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.diagnostics import StopRule, incumbent_stop_point, stop_point
from boexplore.metrics import otsd


def _stagnating(d=4, n_init=6, T=30, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.random((n_init, d)), 0.4 + 0.002 * rng.random((T - n_init, d))])
    return X, otsd(X)


def test_stagnating_run_stops_after_the_window():
    X, o = _stagnating()
    y = np.r_[np.arange(6.0), np.full(24, 5.0)]
    rule = StopRule(window=4, otsd_frac=0.75)
    assert stop_point(o, y, 4, 6, rule) == 6 + 4
    # control 1: the same points with an incumbent that keeps improving never stop
    assert stop_point(o, np.arange(30.0), 4, 6, rule) == 30
    # control 2: a run that keeps jumping between far corners (large OTSD increments) with a
    # flat incumbent does not stop (uniform random points can: their increments are skewed)
    Xr = np.random.default_rng(5).integers(0, 2, size=(30, 10)).astype(float)
    assert stop_point(otsd(Xr), y, 10, 6, rule) == 30


def test_incumbent_rule_ignores_exploration():
    y = np.r_[np.arange(6.0), np.full(24, 5.0)]
    assert incumbent_stop_point(y, 6, 4) == 10
    assert incumbent_stop_point(np.arange(30.0), 6, 4) == 30  # control


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(2, 10), st.floats(0.1, 2.0), st.integers(0, 2**16))
def test_stop_point_is_after_init_plus_window_and_within_budget(window, n_init, frac, seed):
    rng = np.random.default_rng(seed)
    T = 25
    X = rng.random((T, 3)) * rng.choice([1.0, 0.01], size=(T, 1))
    y = np.maximum.accumulate(rng.normal(size=T))
    t = stop_point(otsd(X), y, 3, n_init, StopRule(window=window, otsd_frac=frac))
    assert min(T, n_init + window) <= t <= T
    cond = StopRule(window=window, otsd_frac=frac).conditions(otsd(X), y, 3, n_init)
    assert not cond[: n_init + window - 1].any()
