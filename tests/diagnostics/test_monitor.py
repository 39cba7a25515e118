"""Exploration monitor: references, state rule, hysteresis; each check with a failing control."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.diagnostics import (
    BALANCED,
    OVER,
    UNDER,
    ExplorationMonitor,
    MonitorThresholds,
    assess,
    hysteresis,
    load_references,
    uniform_otsd_curves,
)
from boexplore.diagnostics.references import COLUMNS

STATE = st.sampled_from([OVER, BALANCED, UNDER, None])


def _changes(seq):
    defined = [s for s in seq if s is not None]
    return sum(a != b for a, b in zip(defined, defined[1:], strict=False))


@settings(max_examples=200, deadline=None)
@given(st.lists(STATE, max_size=60), st.integers(1, 6))
def test_hysteresis_never_flickers_more_than_the_raw_state(raw, patience):
    smooth = hysteresis(raw, patience)
    assert len(smooth) == len(raw)
    assert _changes(smooth) <= _changes(raw)
    # every switch lands on a state the raw sequence holds at that step
    for i in range(1, len(smooth)):
        if smooth[i] != smooth[i - 1] and smooth[i - 1] is not None:
            assert raw[i] == smooth[i]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([OVER, BALANCED, UNDER]), min_size=1, max_size=40))
def test_patience_one_is_the_raw_state(raw):
    assert hysteresis(raw, 1) == raw


def test_hysteresis_control_alternating_raw_is_damped():
    raw = [OVER, BALANCED] * 10
    assert _changes(hysteresis(raw, 2)) == 0
    assert _changes(raw) == 19  # control: the raw state does flicker


def test_uniform_curves_do_not_depend_on_the_horizon():
    a, b = uniform_otsd_curves(7, 40), uniform_otsd_curves(7, 25)
    np.testing.assert_allclose(a[:, :25], b)
    # control: another seed gives other values
    assert not np.allclose(uniform_otsd_curves(7, 25, seed=1), b)
    # paper reference values: normalised OTSD of random points ~0.11 (d=2), ~0.058 (d >= 20)
    assert uniform_otsd_curves(2, 100)[0, -1] == pytest.approx(0.11, abs=0.015)
    assert uniform_otsd_curves(50, 100)[0, -1] == pytest.approx(0.058, abs=0.005)


def test_shipped_references_cover_the_replicate_dimensions():
    r = load_references()
    assert set(COLUMNS) <= set(r.table)
    assert {2, 50, 100} <= set(r.dims)
    assert r.nearest_dim(3) in (2, 4) and r.nearest_dim(1000) == 100
    q = [r.ratio_quantile(50, 20, p) for p in (0.05, 0.5, 0.95)]
    assert q[0] <= q[1] <= q[2]
    with pytest.raises(ValueError):
        r.ratio_quantile(50, 20, 0.33)


def _run(points, d, n_init=5):
    mon = ExplorationMonitor(d, n_init=n_init)
    for x in points:
        step = mon.update(x, 0.0)
    return mon, step


def test_clustered_points_are_under_exploring_and_spread_points_are_not():
    rng = np.random.default_rng(0)
    d = 5
    init = rng.random((5, d))
    clustered = np.vstack([init, 0.5 + 0.005 * rng.random((25, d))])
    _, step = _run(clustered, d)
    assert step.state == UNDER
    spread = np.vstack([init, rng.random((25, d))])  # control: random search
    _, step = _run(spread, d)
    assert step.state in (OVER, BALANCED)
    assert step.ratio == pytest.approx(1.0, abs=0.25)


def test_corner_hopping_is_over_exploring_in_high_d():
    rng = np.random.default_rng(1)
    d = 50
    corners = rng.integers(0, 2, size=(30, d)).astype(float)  # far apart: exceeds random
    _, step = _run(corners, d, n_init=10)
    assert step.state == OVER
    _, step = _run(np.vstack([corners[:10], 0.5 + 0.01 * rng.random((20, d))]), d, n_init=10)
    assert step.state != OVER  # control


def test_live_monitor_matches_the_batch_state_rule():
    rng = np.random.default_rng(2)
    X = np.vstack([rng.random((6, 3)), 0.3 + 0.05 * rng.random((20, 3))])
    mon, _ = _run(X, 3, n_init=6)
    a = assess(mon.tracker.otsd_normalized_history, 3, 6, MonitorThresholds(), load_references())
    assert [s.state for s in mon.steps] == a["state"]
    assert all(s.state is None for s in mon.steps[:8])  # initial design + warm-up
