"""Rover trajectory problem: reward terms, analytic collision length, determinism, round-trip."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.problems import get_problem, load_instance, problem_info, save_instance
from boexplore.problems.realworld.rover import GOAL, START, bspline_basis


def straight_line(dim: int) -> np.ndarray:
    """Control points evenly spaced on the segment start -> goal (the spline is that segment)."""
    t = np.linspace(0.0, 1.0, dim // 2)[:, None]
    return (START + t * (GOAL - START)).reshape(1, -1)


def segment_length_in_box(a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    """Exact length of segment a-b inside the box [lo, hi] (slab clipping)."""
    t0, t1 = 0.0, 1.0
    for k in range(2):
        if a[k] == b[k]:
            if not lo[k] <= a[k] <= hi[k]:
                return 0.0
            continue
        s0, s1 = sorted(((lo[k] - a[k]) / (b[k] - a[k]), (hi[k] - a[k]) / (b[k] - a[k])))
        t0, t1 = max(t0, s0), min(t1, s1)
    return max(t1 - t0, 0.0) * float(np.linalg.norm(b - a))


def test_info_and_default_dim():
    info = problem_info("rover")
    assert info.kind == "real-world" and info.default_dim == 60 and info.has_optimum
    p = get_problem("rover")
    assert p.dim == 60 and p.optimum_value == 5.0 and not p.negated
    assert p.obstacles.shape == (15, 2, 2)


def test_basis_is_a_partition_of_unity_and_clamped():
    B = bspline_basis(30, 200)
    np.testing.assert_allclose(B.sum(axis=1), 1.0)
    assert B[0, 0] == pytest.approx(1.0) and B[-1, -1] == pytest.approx(1.0)


def test_straight_line_value_matches_exact_collision_length():
    p = get_problem("rover", instance_seed=0)
    exact = sum(segment_length_in_box(START, GOAL, lo, hi) for lo, hi in p.obstacles)
    assert exact > 0  # this map blocks the diagonal
    value = p.evaluate(straight_line(60))[0]
    assert value == pytest.approx(5.0 - 20.0 * exact, abs=20.0 * 2e-3)


def test_free_map_straight_line_reaches_the_optimum():
    p = get_problem("rover", n_obstacles=0)
    assert p.evaluate(straight_line(60))[0] == pytest.approx(5.0, abs=1e-12)


def test_endpoint_misses_cost_ten_per_l1_unit():
    p = get_problem("rover", n_obstacles=0)
    X = straight_line(60)
    X[0, 0] -= 0.05  # first control point x: 0.05 -> 0.0
    X[0, -1] += 0.05  # last control point y: 0.95 -> 1.0
    assert p.evaluate(X)[0] == pytest.approx(5.0 - 10.0 * 0.1, abs=1e-9)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**16))
def test_reward_never_exceeds_the_optimum(seed):
    p = get_problem("rover", instance_seed=seed % 3)
    v = p.evaluate(np.random.default_rng(seed).random((3, 60)))
    assert np.all(np.isfinite(v)) and np.all(v <= 5.0)


def test_obstacles_are_separated_and_seeded():
    p = get_problem("rover", instance_seed=5)
    lo = p.obstacles[:, 0]
    gaps = np.abs(lo[:, None, :] - lo[None, :, :]).max(axis=-1) + np.eye(len(lo)) * 9
    assert gaps.min() >= 0.1 + 0.02 - 1e-12
    assert np.array_equal(get_problem("rover", instance_seed=5).obstacles, p.obstacles)
    assert not np.array_equal(get_problem("rover", instance_seed=6).obstacles, p.obstacles)


def test_deterministic_batch_and_round_trip(tmp_path, unit_points):
    p = get_problem("rover", instance_seed=2)
    X = unit_points(60, 11, seed=1)
    v = p.evaluate(X)
    np.testing.assert_allclose(np.array([p.evaluate(x)[0] for x in X]), v, rtol=1e-12)
    loaded = load_instance(save_instance(p, tmp_path / "rover.json"))
    assert np.array_equal(loaded.evaluate(X), v)


def test_bad_inputs():
    with pytest.raises(ValueError, match="rover"):
        get_problem("rover", dim=61)
    p = get_problem("rover")
    with pytest.raises(ValueError, match="rover"):
        p.evaluate(np.full((1, 60), -0.5))
    with pytest.raises(ValueError, match="rover"):
        get_problem("rover", n_obstacles=500)
