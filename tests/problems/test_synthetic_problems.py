"""Synthetic and embedded problems: values, optima, bounds, dims, noise."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from boexplore.problems import get_problem, problem_info
from boexplore.problems.embedded import choose_active_dims

PI = np.pi


# Independent re-derivations of the (minimisation) definitions, original coordinates.
def branin(x: np.ndarray) -> np.ndarray:
    b, c, t = 5.1 / (4 * PI**2), 5 / PI, 1 / (8 * PI)
    return (x[:, 1] - b * x[:, 0] ** 2 + c * x[:, 0] - 6) ** 2 + 10 * (1 - t) * np.cos(x[:, 0]) + 10


def ackley(x: np.ndarray) -> np.ndarray:
    return (
        -20 * np.exp(-0.2 * np.sqrt((x**2).mean(1)))
        - np.exp(np.cos(2 * PI * x).mean(1))
        + 20
        + np.e
    )


def levy(x: np.ndarray) -> np.ndarray:
    w = 1 + (x - 1) / 4
    mid = ((w[:, :-1] - 1) ** 2 * (1 + 10 * np.sin(PI * w[:, :-1] + 1) ** 2)).sum(1)
    last = (w[:, -1] - 1) ** 2 * (1 + np.sin(2 * PI * w[:, -1]) ** 2)
    return np.sin(PI * w[:, 0]) ** 2 + mid + last


def rosenbrock(x: np.ndarray) -> np.ndarray:
    return (100 * (x[:, 1:] - x[:, :-1] ** 2) ** 2 + (x[:, :-1] - 1) ** 2).sum(1)


def griewank(x: np.ndarray) -> np.ndarray:
    i = np.arange(1, x.shape[1] + 1)
    return (x**2).sum(1) / 4000 - np.prod(np.cos(x / np.sqrt(i)), axis=1) + 1


def styblinski_tang(x: np.ndarray) -> np.ndarray:
    return 0.5 * (x**4 - 16 * x**2 + 5 * x).sum(1)


def michalewicz(x: np.ndarray) -> np.ndarray:
    i = np.arange(1, x.shape[1] + 1)
    return -(np.sin(x) * np.sin(i * x**2 / PI) ** 20).sum(1)


ORACLES = {
    "branin": (branin, [(-5, 10), (0, 15)]),
    "ackley": (ackley, [(-32.768, 32.768)]),
    "levy": (levy, [(-10, 10)]),
    "rosenbrock": (rosenbrock, [(-5, 10)]),
    "griewank": (griewank, [(-600, 600)]),
    "styblinski_tang": (styblinski_tang, [(-5, 5)]),
    "michalewicz": (michalewicz, [(0, PI)]),
}


ORACLE_CASES = [(n, d) for n in sorted(ORACLES) for d in (2, 7) if not (n == "branin" and d == 7)]


@pytest.mark.parametrize("name,dim", ORACLE_CASES)
def test_values_match_definition_negated(name, dim, unit_points):
    problem = get_problem(name, dim=dim)
    oracle, box = ORACLES[name]
    box = box if len(box) == dim else box * dim
    np.testing.assert_allclose(problem.bounds, np.array(box, dtype=float).T)
    assert problem.negated
    X = unit_points(dim, n=20, seed=dim)
    np.testing.assert_allclose(problem.evaluate(X), -oracle(problem.to_original(X)), rtol=1e-10)


def test_default_dims_and_info(synthetic_name):
    info = problem_info(synthetic_name)
    problem = get_problem(synthetic_name)
    assert problem.dim == info.default_dim
    assert problem.name == synthetic_name and info.kind == "synthetic"
    assert problem.bounds.shape == (2, problem.dim)
    assert np.all(problem.bounds[0] < problem.bounds[1])


@pytest.mark.parametrize(
    "name,dim",
    [("branin", 2), ("hartmann", 3), ("hartmann", 6), ("ackley", 5), ("levy", 5),
     ("rosenbrock", 5), ("griewank", 5), ("styblinski_tang", 5), ("michalewicz", 2),
     ("hartmann6_embedded", 6), ("hartmann6_embedded", 100), ("branin_embedded", 180)],
)  # fmt: skip
def test_optimum_reached_at_known_optimiser(name, dim, unit_points):
    problem = get_problem(name, dim=dim)
    assert problem.optimizer_unit is not None and problem.optimum_value is not None
    x = problem.optimizer_unit
    assert np.all((x >= 0) & (x <= 1))
    value = problem.evaluate(x[None])[0]
    assert value == pytest.approx(problem.optimum_value, abs=1e-4 * max(1.0, abs(value)))
    # and no random point does better (everything is maximised)
    assert np.all(problem.evaluate(unit_points(dim, n=200, seed=1)) <= problem.optimum_value + 1e-4)


def test_branin_has_three_optimisers():
    problem = get_problem("branin")
    minimisers = np.array([[-PI, 12.275], [PI, 2.275], [9.42478, 2.475]])
    values = problem.evaluate(problem.to_unit(minimisers))
    np.testing.assert_allclose(values, -0.397887, atol=1e-5)


@pytest.mark.parametrize("dim,known", [(2, True), (5, True), (10, True), (3, False), (180, False)])
def test_michalewicz_optimum_only_where_known(dim, known, unit_points):
    problem = get_problem("michalewicz", dim=dim)
    assert (problem.optimum_value is not None) == known
    if known:
        assert problem.optimum_value > 0
        assert np.all(problem.evaluate(unit_points(dim, n=200)) <= problem.optimum_value)


def test_optimum_values_in_maximisation_convention():
    assert get_problem("branin").optimum_value == pytest.approx(-0.397887)
    assert get_problem("hartmann").optimum_value == pytest.approx(3.32237)
    assert get_problem("hartmann", dim=3).optimum_value == pytest.approx(3.86278)
    assert get_problem("styblinski_tang", dim=4).optimum_value == pytest.approx(4 * 39.166166)
    for name in ("ackley", "levy", "rosenbrock", "griewank"):
        assert get_problem(name, dim=3).optimum_value == 0.0


@pytest.mark.parametrize(
    "name,dim",
    [("branin", 3), ("branin", 1), ("hartmann", 4), ("hartmann", 2), ("hartmann", 7),
     ("ackley", 1), ("michalewicz", 0), ("hartmann6_embedded", 5), ("branin_embedded", 1)],
)  # fmt: skip
def test_dim_out_of_range_is_rejected(name, dim):
    with pytest.raises(ValueError, match=name):
        get_problem(name, dim=dim)


def test_unknown_name_lists_known_problems():
    with pytest.raises(KeyError, match="branin"):
        get_problem("no_such_problem")


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(sorted(ORACLES)),
    u=arrays(np.float64, (4, 2), elements=st.floats(0.0, 1.0)),
)
def test_bounds_mapping_is_inverse(name, u):
    problem = get_problem(name, dim=2)
    np.testing.assert_allclose(problem.to_unit(problem.to_original(u)), u, atol=1e-12)
    x = problem.to_original(u)
    assert np.all(x >= problem.bounds[0] - 1e-9) and np.all(x <= problem.bounds[1] + 1e-9)


# -- embedded ------------------------------------------------------------------


def test_embedded_defaults(embedded_name):
    problem = get_problem(embedded_name)
    base_dim = problem_info(embedded_name).extra["effective_dim"]
    assert problem.dim == 100 and len(problem.active_dims) == base_dim
    assert len(set(problem.active_dims)) == base_dim
    assert problem.optimum_value == problem.base.optimum_value


def test_embedded_ignores_inactive_coordinates(embedded_name, unit_points):
    problem = get_problem(embedded_name, dim=30, instance_seed=4)
    X = unit_points(30, n=10, seed=2)
    inactive = [i for i in range(30) if i not in problem.active_dims]
    X2 = X.copy()
    X2[:, inactive] = unit_points(len(inactive), n=10, seed=3)
    np.testing.assert_array_equal(problem.evaluate(X), problem.evaluate(X2))
    expected = problem.base.evaluate(X[:, problem.active_dims])
    np.testing.assert_array_equal(problem.evaluate(X), expected)
    X3 = X.copy()
    X3[:, problem.active_dims[0]] = 1 - X3[:, problem.active_dims[0]]
    assert not np.allclose(problem.evaluate(X3), problem.evaluate(X))


def test_embedded_active_dims_follow_seed(embedded_name):
    a = get_problem(embedded_name, instance_seed=0).active_dims
    assert a == get_problem(embedded_name, instance_seed=0).active_dims
    others = [get_problem(embedded_name, instance_seed=s).active_dims for s in (1, 2, 3)]
    assert any(o != a for o in others)
    assert a == choose_active_dims(100, len(a), 0)


def test_embedded_explicit_active_dims_validated():
    problem = get_problem("branin_embedded", dim=10, active_dims=[3, 7])
    assert problem.active_dims == [3, 7]
    for bad in ([3, 3], [1, 2, 3], [0, 10], [-1, 2]):
        with pytest.raises(ValueError, match="branin_embedded"):
            get_problem("branin_embedded", dim=10, active_dims=bad)


# -- noise -----------------------------------------------------------------------


def test_noise_is_a_pure_function_of_the_point(unit_points):
    problem = get_problem("hartmann", instance_seed=5, noise_std=0.5)
    X = unit_points(6, n=400, seed=9)
    y = problem.evaluate(X)
    np.testing.assert_array_equal(y, problem.evaluate(X))
    np.testing.assert_array_equal(y[7:9], problem.evaluate(X[7:9]))  # alone == in a batch
    clean = problem.evaluate_noiseless(X)
    np.testing.assert_array_equal(clean, get_problem("hartmann").evaluate(X))
    resid = y - clean
    assert abs(resid.mean()) < 0.1 and 0.4 < resid.std() < 0.6
    other = get_problem("hartmann", instance_seed=6, noise_std=0.5).evaluate(X)
    assert not np.allclose(other, y)


def test_negative_noise_rejected():
    with pytest.raises(ValueError, match="noise_std"):
        get_problem("ackley", dim=3, noise_std=-1.0)
