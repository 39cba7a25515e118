"""Finite-domain problems of paper 2: unique optimum, realizability, spec round-trip, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.problems.finite import GPSampleProblem, NNRealizableProblem, mlp_forward
from boexplore.problems.registry import get_problem


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 1000),
    dim=st.integers(1, 2),
    kind=st.sampled_from(["nn_realizable", "gp_sample"]),
)
def test_unique_optimum_with_margin(seed, dim, kind):
    p = get_problem(kind, dim=dim, instance_seed=seed, n_points=48, min_gap=0.05)
    v = np.sort(p.values)
    assert v[-1] - v[-2] >= 0.05
    assert p.values[p.optimum_index] == v[-1]
    assert p.optimum_value == pytest.approx(v[-1])
    assert abs(p.values.mean()) < 1e-9 and p.values.std() == pytest.approx(1.0)
    assert p.points.shape == (48, dim) and p.points.min() >= 0 and p.points.max() <= 1


def test_teacher_realizes_values():
    p = NNRealizableProblem(2, instance_seed=3, n_points=64, teacher_width=16)
    np.testing.assert_allclose(mlp_forward(p.teacher_params(), p.points), p.values, atol=1e-10)


@pytest.mark.parametrize("kind", ["nn_realizable", "gp_sample"])
def test_spec_round_trip(kind):
    p = get_problem(kind, dim=2, instance_seed=5, n_points=32)
    spec = p.to_spec()
    q = get_problem(
        spec["name"],
        dim=spec["dim"],
        instance_seed=spec["instance_seed"],
        noise_std=spec["noise_std"],
        **spec["options"],
    )
    np.testing.assert_array_equal(p.points, q.points)
    np.testing.assert_array_equal(p.values, q.values)
    assert q.to_spec() == spec


def test_evaluate_nearest_point():
    p = GPSampleProblem(1, n_points=11)
    np.testing.assert_array_equal(p.evaluate(p.points), p.values)
    assert p.evaluate(np.array([[0.51]]))[0] == p.values[5]
    with pytest.raises(ValueError, match="gp_sample"):
        p.evaluate(np.array([[1.5]]))


def test_bad_options_raise():
    with pytest.raises(ValueError, match="nn_realizable"):
        NNRealizableProblem(1, teacher_width=0)
    with pytest.raises(ValueError, match="gp_sample"):
        GPSampleProblem(1, lengthscale=-1)
    with pytest.raises(ValueError, match="optimum gap"):
        GPSampleProblem(1, n_points=8, min_gap=10.0)
