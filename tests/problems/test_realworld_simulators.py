"""Simulator problems: robot pushing (Box2D), lunar lander (gymnasium), MuJoCo linear policies.

Each test skips when its simulator package is missing; construction then
must raise an ImportError naming the dependency (tested with a fake import).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from boexplore.problems import get_problem, load_instance, problem_info, save_instance
from boexplore.problems.realworld import deps
from boexplore.problems.realworld.lunar_lander import GYMNASIUM_HEURISTIC_WEIGHTS, heuristic_action
from boexplore.problems.realworld.robot_pushing import OBJECT_STARTS

HAS_BOX2D = deps.available("Box2D")
HAS_LUNAR = deps.available("gymnasium.envs.box2d.lunar_lander")
HAS_MUJOCO = deps.available("gymnasium") and deps.available("mujoco")

NAMES = ["robot_pushing", "lunar_lander", "mujoco_swimmer", "mujoco_hopper"]


@pytest.mark.parametrize(
    ("name", "dim"),
    [("robot_pushing", 14), ("lunar_lander", 12), ("mujoco_swimmer", 16), ("mujoco_hopper", 33)],
)
def test_registered_with_fixed_dims(name, dim):
    info = problem_info(name)
    assert info.kind == "real-world" and info.default_dim == dim
    assert info.min_dim == info.max_dim == dim
    with pytest.raises(ValueError, match=name):
        _construct_wrong_dim(name, dim)


def _construct_wrong_dim(name, dim):
    from boexplore.problems.registry import _REGISTRY

    _REGISTRY[name][1](dim=dim + 1)


def test_missing_dependency_error_names_the_package(monkeypatch):
    def fail(module):
        raise ImportError(f"No module named {module!r}")

    monkeypatch.setattr(deps.importlib, "import_module", fail)
    for name, pip_name in [
        ("robot_pushing", "box2d"),
        ("lunar_lander", "gymnasium[box2d]"),
        ("mujoco_swimmer", "gymnasium[mujoco]"),
    ]:
        with pytest.raises(ImportError, match=rf"{name}.*pip install {re.escape(pip_name)}"):
            get_problem(name)


def test_heuristic_controller_decisions():
    w = GYMNASIUM_HEURISTIC_WEIGHTS
    hovering_low = [0.0, 0.0, 0.0, -0.5, 0.0, 0.0, 0.0, 0.0]  # falling fast near the pad
    assert heuristic_action(hovering_low, w) == 2
    tilted_left = [0.0, 1.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]  # angle > 0 -> fire right engine
    assert heuristic_action(tilted_left, w) == 3
    tilted_right = [0.0, 1.0, 0.0, 0.0, -0.5, 0.0, 0.0, 0.0]
    assert heuristic_action(tilted_right, w) == 1
    landed = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    assert heuristic_action(landed, w) == 0


# -- robot pushing -------------------------------------------------------------
def _push_disc_towards_goal(p) -> np.ndarray:
    goal = p.goals[0]
    direction = (goal - OBJECT_STARTS[0]) / np.linalg.norm(goal - OBJECT_STARTS[0])
    start = OBJECT_STARTS[0] - 2.0 * direction
    angle = float(np.arctan2(direction[1], direction[0]) % (2 * np.pi))
    hand1 = [*start, angle, *(2.0 * direction), 0.0, 1.0]
    hand2 = [5.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.2]  # parked in a corner, never moves
    return p.to_unit(np.array(hand1 + hand2))[None]


@pytest.mark.skipif(not HAS_BOX2D, reason="box2d not installed")
def test_robot_pushing_values_make_sense():
    p = get_problem("robot_pushing", instance_seed=0)
    assert p.goals.shape == (2, 2) and p.optimum_value is None and not p.negated
    idle = p.to_unit(np.array([5.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.2] * 2))[None]
    assert p.evaluate(idle)[0] == pytest.approx(0.0, abs=1e-9)
    u = _push_disc_towards_goal(p)
    final = p.final_positions(u)[0]
    np.testing.assert_allclose(final[1], OBJECT_STARTS[1], atol=1e-9)  # square untouched
    value = p.evaluate(u)[0]
    assert 0.5 < value <= p.reward_upper_bound


@pytest.mark.skipif(not HAS_BOX2D, reason="box2d not installed")
def test_robot_pushing_deterministic_and_round_trip(tmp_path, unit_points):
    p = get_problem("robot_pushing", instance_seed=1)
    X = unit_points(14, 8, seed=2)
    v = p.evaluate(X)
    assert np.array_equal(v, p.evaluate(X))
    assert np.all(v <= p.reward_upper_bound + 1e-12)
    loaded = load_instance(save_instance(p, tmp_path / "push.json"))
    assert np.array_equal(loaded.evaluate(X), v)
    assert not np.array_equal(get_problem("robot_pushing", instance_seed=2).goals, p.goals)
    with pytest.raises(ValueError, match="robot_pushing"):
        p.evaluate(np.full((1, 14), 2.0))


# -- lunar lander -------------------------------------------------------------
@pytest.mark.skipif(not HAS_LUNAR, reason="gymnasium[box2d] not installed")
def test_lunar_lander_known_controller_beats_doing_nothing():
    p = get_problem("lunar_lander", n_episodes=3)
    good = np.array(GYMNASIUM_HEURISTIC_WEIGHTS)[None] / 2.0
    idle = np.zeros((1, 12))  # all thresholds 0, gains 0: never fires the main engine
    v = p.evaluate(np.vstack([good, idle]))
    assert v[0] > 100.0 and v[1] < 0.0


@pytest.mark.skipif(not HAS_LUNAR, reason="gymnasium[box2d] not installed")
def test_lunar_lander_deterministic_and_round_trip(tmp_path, unit_points):
    p = get_problem("lunar_lander", instance_seed=3, n_episodes=2, max_steps=200)
    X = unit_points(12, 3, seed=0)
    v = p.evaluate(X)
    assert np.array_equal(v, p.evaluate(X))
    loaded = load_instance(save_instance(p, tmp_path / "ll.json"))
    assert loaded.episode_seeds == p.episode_seeds
    assert np.array_equal(loaded.evaluate(X), v)


# -- MuJoCo ---------------------------------------------------------------------
@pytest.mark.skipif(not HAS_MUJOCO, reason="gymnasium[mujoco] not installed")
def test_swimmer_zero_policy_and_determinism(unit_points):
    p = get_problem("mujoco_swimmer", n_episodes=1, max_steps=100)
    assert p.dim == 16 and np.all(p.bounds == [[-1.0] * 16, [1.0] * 16])
    np.testing.assert_array_equal(p.obs_mean, 0.0)
    X = unit_points(16, 2, seed=0)
    v = p.evaluate(X)
    assert np.array_equal(v, p.evaluate(X)) and np.all(np.isfinite(v))
    # M = 0: no control cost; the return is the forward displacement / dt (dt = 0.04 s),
    # and the passive swimmer only drifts a few cm from its noisy initial state
    still = p.evaluate(np.full((1, 16), 0.5))[0]
    assert abs(still) * 0.04 < 0.1


@pytest.mark.skipif(not HAS_MUJOCO, reason="gymnasium[mujoco] not installed")
def test_hopper_normalisation_stats_round_trip(tmp_path, unit_points):
    p = get_problem("mujoco_hopper", n_episodes=1, max_steps=50, stats_episodes=1)
    assert p.dim == 33 and p.obs_mean.shape == (11,) and np.all(p.obs_std >= 1e-2)
    X = unit_points(33, 2, seed=1)
    v = p.evaluate(X)
    loaded = load_instance(save_instance(p, tmp_path / "hopper.json"))
    np.testing.assert_array_equal(loaded.obs_std, p.obs_std)
    assert np.array_equal(loaded.evaluate(X), v)
    # standing still earns the healthy bonus (1 per step) until the episode ends
    assert p.evaluate(np.full((1, 33), 0.5))[0] > 10.0
