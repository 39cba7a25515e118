"""Problems on binary, categorical and mixed domains: shapes, seeds, domains, known optima."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from boexplore.metrics.domain import parse_domain
from boexplore.problems import get_problem, list_problems, load_instance, save_instance
from boexplore.problems.combinatorial.base import CombinatorialProblem
from boexplore.problems.combinatorial.labs import OPTIMAL_ENERGY, labs_energy

NAMES = [
    "labs", "maxsat_planted", "contamination", "pest_control", "mixed_ackley", "ising_sparsification",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_registered_with_a_domain_metrics_read(name):
    info = {i.name: i for i in list_problems()}[name]
    assert info.kind == "combinatorial"
    p = get_problem(name)
    assert isinstance(p, CombinatorialProblem)
    dom = parse_domain(p.domain_spec)
    assert dom.width == p.dim
    X = p.sample_raw(np.random.default_rng(0), 30)
    dom.encode(X)  # raw samples fit the domain the metrics read
    y = p.evaluate_raw(X)
    assert y.shape == (30,) and np.all(np.isfinite(y))


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_by_seed_and_round_trip(name, tmp_path):
    a, b = get_problem(name, instance_seed=3), get_problem(name, instance_seed=3)
    X = a.sample_raw(np.random.default_rng(1), 20)
    np.testing.assert_array_equal(a.evaluate_raw(X), b.evaluate_raw(X))
    loaded = load_instance(save_instance(a, tmp_path / f"{name}.json"))
    np.testing.assert_array_equal(loaded.evaluate_raw(X), a.evaluate_raw(X))


@pytest.mark.parametrize(
    "name", ["maxsat_planted", "contamination", "pest_control", "ising_sparsification"]
)
def test_instance_seed_changes_the_instance(name):
    X = get_problem(name).sample_raw(np.random.default_rng(2), 20)
    assert not np.array_equal(
        get_problem(name, instance_seed=0).evaluate_raw(X),
        get_problem(name, instance_seed=1).evaluate_raw(X),
    )


@pytest.mark.parametrize("name", NAMES)
def test_unit_cube_and_raw_agree(name):
    p = get_problem(name)
    X = p.sample_raw(np.random.default_rng(4), 10)
    np.testing.assert_array_equal(p.unit_to_raw(p.raw_to_unit(X)), X)
    np.testing.assert_allclose(p.evaluate(p.raw_to_unit(X)), p.evaluate_raw(X))


@pytest.mark.parametrize("name", NAMES)
def test_bad_raw_values_are_named(name):
    p = get_problem(name)
    good = p.sample_raw(np.random.default_rng(5), 2)
    j = int(p.finite_columns[0])
    for value in (0.5, float(p.levels[j]), -1.0, np.nan):
        X = good.copy()
        X[1, j] = value
        with pytest.raises(ValueError, match=name):
            p.evaluate_raw(X)
    with pytest.raises(ValueError, match=name):
        p.evaluate_raw(good[:, :-1])


def _all_binary(n: int) -> np.ndarray:
    return np.array(list(itertools.product([0.0, 1.0], repeat=n)))


@pytest.mark.parametrize("n", range(3, 13))
def test_labs_optimum_by_brute_force(n):
    X = _all_binary(n)
    assert int(labs_energy(X).min()) == OPTIMAL_ENERGY[n]
    p = get_problem("labs", dim=n)
    assert p.evaluate_raw(X).max() == pytest.approx(p.optimum_value)


def test_labs_energy_by_hand():
    # s = (+1, +1, -1): C_1 = 1 - 1 = 0, C_2 = -1, E = 1 (a Barker sequence), F = 9 / 2
    assert labs_energy(np.array([[1.0, 1.0, 0.0]]))[0] == 1.0
    assert get_problem("labs", dim=3).evaluate_raw([[1, 1, 0]])[0] == 4.5
    assert get_problem("labs", dim=51).optimum_value is None


def test_maxsat_planted_optimum_by_brute_force():
    p = get_problem("maxsat_planted", dim=12, instance_seed=7)
    y = p.evaluate_raw(_all_binary(12))
    assert y.max() == pytest.approx(1.0) and p.evaluate_raw(p.optimizer_raw)[0] == 1.0
    assert (y < 1.0 - 1e-12).mean() > 0.9  # most assignments leave a clause unsatisfied


def test_mixed_ackley_optimum_and_control():
    p = get_problem("mixed_ackley")
    assert p.domain_spec == "binary*50,continuous(0,1)*3"
    assert p.evaluate_raw(p.optimizer_raw)[0] == pytest.approx(0.0, abs=1e-12)
    X = p.sample_raw(np.random.default_rng(0), 200)
    assert np.all(p.evaluate_raw(X) < -0.1)


def test_costs_grow_with_what_is_paid():
    """Contamination: preventing at every stage pays 25.25 and keeps fewer samples above U;
    pest control: the cost of a plan is its price plus a fraction per stage, so >= 0."""
    c = get_problem("contamination")
    none, every = np.zeros((1, 25)), np.ones((1, 25))
    assert -c.evaluate_raw(every)[0] >= 25.25 - 1e-12
    assert -c.evaluate_raw(none)[0] <= 25.0 + 1e-12  # only the penalty, at most 1 per stage
    pest = get_problem("pest_control")
    y = pest.evaluate_raw(pest.sample_raw(np.random.default_rng(0), 20))
    assert np.all(y <= 0)


def test_ising_kl_by_direct_sums():
    """The cost is KL(P || Q_x) + 0.01 |x|, KL summed over the 2^16 states directly."""
    p = get_problem("ising_sparsification")
    x = p.sample_raw(np.random.default_rng(3), 1)[0]

    def log_probs(theta):
        e = p.pair @ theta
        return e - (np.log(np.exp(e - e.max()).sum()) + e.max())

    lp, lq = log_probs(p.theta), log_probs(p.theta * x)
    kl = float(np.sum(np.exp(lp) * (lp - lq)))
    assert -p.evaluate_raw(x)[0] == pytest.approx(kl + 0.01 * x.sum(), rel=1e-9)
    assert p.evaluate_raw(np.ones(24))[0] == pytest.approx(-0.24, abs=1e-9)  # Q = P: KL = 0
    X = p.sample_raw(np.random.default_rng(4), 50)
    assert np.all(-p.evaluate_raw(X) >= 0.01 * X.sum(axis=1) - 1e-9)  # KL >= 0
    with pytest.raises(ValueError, match="24 edges"):
        get_problem("ising_sparsification", dim=24).__class__(dim=23)
