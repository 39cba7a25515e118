"""Trust region: shrink on failures, grow on successes, restart below the minimum length."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.bo.trust_region import TrustRegionState


def test_default_failure_tolerance_is_turbo_rule():
    assert TrustRegionState(dim=10, q=1).failure_tolerance == 10
    assert TrustRegionState(dim=2, q=4).failure_tolerance == 1


def test_shrinks_after_failures_and_restarts():
    tr = TrustRegionState(dim=4, q=1, best_value=1.0)
    assert tr.failure_tolerance == 4
    for _ in range(3):
        tr.update(0.5)
    assert tr.length == 0.8
    tr.update(0.5)
    assert tr.length == 0.4
    for _ in range(4 * 10):
        tr.update(float("nan"))  # NaN batches are failures
    assert tr.restarts >= 1
    assert tr.length_min <= tr.length <= tr.length_init


def test_grows_after_successes():
    tr = TrustRegionState(dim=4, q=1, best_value=1.0, success_tolerance=2)
    tr.update(2.0)
    tr.update(3.0)
    assert tr.length == 1.6 and tr.best_value == 3.0
    tr.update(4.0)
    tr.update(5.0)
    assert tr.length == 1.6  # capped at length_max


def test_bounds_are_centered_box():
    tr = TrustRegionState(dim=3, length=0.4)
    center = torch.tensor([0.5, 0.5, 0.05], dtype=torch.float64)
    b = tr.bounds(center, None)
    assert torch.allclose(b[1] - b[0], torch.tensor([0.4, 0.4, 0.25], dtype=torch.float64))
    assert float(b[0, 2]) == 0.0


@settings(max_examples=50, deadline=None)
@given(ls=st.lists(st.floats(0.05, 5.0), min_size=3, max_size=3), length=st.floats(0.01, 1.6))
def test_lengthscale_weights_keep_volume(ls, length):
    tr = TrustRegionState(dim=3, length=length)
    center = torch.full((3,), 0.5, dtype=torch.float64)
    b = tr.bounds(center, torch.tensor(ls, dtype=torch.float64))
    side = b[1] - b[0]
    unclipped = bool((side < 1.0 - 1e-12).all())
    if unclipped:
        assert abs(float(torch.prod(side)) ** (1 / 3) - length) < 1e-9
    assert bool((b >= 0).all() and (b <= 1).all())
