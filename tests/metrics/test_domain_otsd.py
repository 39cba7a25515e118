"""OTSD on domains against exact tours (Held-Karp, brute force), the tracker, and the tour bounds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.metrics import (
    Domain,
    DomainExplorationTracker,
    check_domain_bounds,
    domain_distances,
    domain_metrics_table,
    domain_otsd,
    domain_otsd_tour,
    domain_tour_bounds,
    held_karp_distances,
    otsd,
    parse_domain,
    psi,
    tour_lower_bounds,
)

DOMAINS = (
    "binary*6",
    "categorical(3)*4",
    "binary*2,categorical(4)*2,integer(0,3)",
    "binary*3,categorical(5),continuous(-1,1)*2",
)


def closed_length(D: np.ndarray, order) -> float:
    order = list(order)
    return float(sum(D[a, b] for a, b in zip(order, order[1:] + order[:1], strict=True)))


def brute_force(D: np.ndarray) -> float:
    n = len(D)
    if n < 2:
        return 0.0
    return min(closed_length(D, (0, *p)) for p in itertools.permutations(range(1, n)))


@st.composite
def traces(draw, max_points: int = 10):
    dom = parse_domain(draw(st.sampled_from(DOMAINS)))
    T = draw(st.integers(1, max_points))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    X = dom.sample(rng, T)
    if T > 3 and draw(st.booleans()):
        X[rng.integers(1, T)] = X[rng.integers(0, T)]  # a repeated query
    return dom, X


def test_held_karp_on_a_distance_matrix_matches_brute_force() -> None:
    dom = parse_domain(DOMAINS[2])
    for seed, n in itertools.product(range(3), (2, 5, 8)):
        D = domain_distances(dom.sample(np.random.default_rng(seed), n), dom)
        length, tour = held_karp_distances(D)
        assert sorted(tour.tolist()) == list(range(n))
        assert length == pytest.approx(brute_force(D)) == pytest.approx(closed_length(D, tour))
    # the 4-cycle 00 -> 01 -> 11 -> 10 of {0,1}^2: 4 mismatches, where 00 -> 11 -> ... costs 6
    square = np.array([[0, 0], [1, 1], [0, 1], [1, 0]])
    assert held_karp_distances(domain_distances(square, "binary*2"))[0] == 4.0


@settings(max_examples=50, deadline=None)
@given(traces())
def test_exact_tour_sits_between_every_bound_and_the_heuristic(case) -> None:
    dom, X = case
    T = len(X)
    table = domain_metrics_table(X, dom)
    for t in range(1, T + 1):
        opt = held_karp_distances(domain_distances(X[:t], dom))[0]
        row = {k: v[t - 1] for k, v in table.items()}
        for key in ("otsd_lb_mst", "otsd_lb_diam", "otsd_lb_nn", "otsd_lb_lattice", "otsd_lb"):
            assert row[key] <= opt + 1e-9, key
        assert opt <= row["otsd"] + 1e-9 and row["otsd"] <= row["otsd_ub"] + 1e-9
        assert opt <= row["opt_ub"] + 1e-9
    distinct = len(np.unique(X, axis=0))
    if dom.is_finite and distinct >= 2:
        assert table["otsd_lb_lattice"][-1] == pytest.approx(distinct * dom.lattice_step)
    assert check_domain_bounds(table["otsd"], domain_tour_bounds(X, dom))["inside_all"].all()


@settings(max_examples=40, deadline=None)
@given(traces(max_points=30))
def test_tracker_equals_batch_and_tour_has_the_reported_length(case) -> None:
    dom, X = case
    table = domain_metrics_table(X, dom)
    tracker = DomainExplorationTracker(dom, capacity=2)  # grows
    for x in X:
        tracker.update(x)
    hist = tracker.history()
    np.testing.assert_allclose(hist["otsd"], table["otsd"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hist["oe"], table["oe"], rtol=1e-12, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(hist["lb"], table["otsd_lb"], rtol=1e-12, atol=1e-12)
    tour = domain_otsd_tour(X, dom)
    assert sorted(tour.tolist()) == list(range(len(X)))
    D = domain_distances(X, dom)
    assert closed_length(D, tour) == pytest.approx(table["otsd"][-1], abs=1e-9)
    assert tracker.otsd == table["otsd"][-1] and np.array_equal(tracker.tour, tour)
    assert np.all(np.diff(table["otsd"]) >= -1e-12)


def test_box_domain_reproduces_the_box_metrics() -> None:
    X = np.random.default_rng(5).random((80, 3))
    box = Domain.box(3)
    np.testing.assert_array_equal(domain_otsd(X, box), otsd(X))
    lb = tour_lower_bounds(X)
    table = domain_metrics_table(X, box)
    for key in ("mst", "diam", "nn"):
        np.testing.assert_array_equal(table[f"otsd_lb_{key}"], lb[key])
    np.testing.assert_array_equal(table["otsd_lb"], lb["lb"])
    np.testing.assert_allclose(DomainExplorationTracker(box).update(X).history()["otsd"], otsd(X))


def test_hamming_ties_go_to_the_earliest_edge_and_are_relabelling_invariant() -> None:
    """On {0,1}^d many insertion costs tie exactly; the box's tie rule decides them, so a
    relabelled design (bits flipped in some columns) gets the very same tour."""
    dom = parse_domain("binary*5")
    X = dom.sample(np.random.default_rng(11), 40)
    flip = np.array([1, 0, 1, 1, 0])
    Y = np.abs(X - flip)
    np.testing.assert_array_equal(domain_otsd(X, dom), domain_otsd(Y, dom))
    np.testing.assert_array_equal(domain_otsd_tour(X, dom), domain_otsd_tour(Y, dom))


def test_distinct_points_give_at_least_one_mismatch_per_edge() -> None:
    """The lattice bound is tight on a Gray-code walk of {0,1}^3 (every edge one mismatch)."""
    gray = np.array(
        [[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 0], [1, 1, 0], [1, 1, 1], [1, 0, 1], [1, 0, 0]]
    )
    table = domain_metrics_table(gray, "binary*3")
    exact = held_karp_distances(domain_distances(gray, "binary*3"))[0]
    assert table["otsd_lb_lattice"][-1] == 8 == exact
    assert table["otsd_lb_mst"][-1] == 7  # the MST alone gives t - 1
    # OPT <= min(t x diameter, Gray walk (size - 1) + diameter) = min(24, 10)
    assert table["opt_ub"][-1] == 10 and table["otsd_ub"][-1] == 24


def test_bound_check_flags_a_tour_outside_its_bounds() -> None:
    """Control: the check is not vacuous; a tour shorter than the lower bound or longer than
    t x diameter, or a lower bound above a proven upper bound, is reported."""
    dom = parse_domain("categorical(3)*4")
    X = dom.sample(np.random.default_rng(2), 25)
    table = domain_metrics_table(X, dom)
    bounds = domain_tour_bounds(X, dom)
    assert check_domain_bounds(table["otsd"], bounds)["inside_all"].all()
    short = check_domain_bounds(table["otsd_lb"] * 0.9, bounds)
    assert not short["inside_lower"][1:].any() and short["inside_upper"].all()
    long = check_domain_bounds(table["otsd_ub"] + 1.0, bounds)
    assert not long["inside_upper"].any()
    wrong = dict(bounds, ub_opt=bounds["lb"] - 1.0)
    assert not check_domain_bounds(table["otsd"], wrong)["consistent"].any()


def test_psi_is_not_a_bound_under_mismatches() -> None:
    """Psi(d, t) (a Euclidean argument) bounds the box's tours, not Hamming ones: at d = 400 the
    heuristic tour through 50 random binary points is above it, and t x d is not exceeded."""
    dom = parse_domain("binary*400")
    X = dom.sample(np.random.default_rng(0), 50)
    tour = domain_otsd(X, dom)
    assert tour[-1] > psi(400, 50)
    assert tour[-1] <= 50 * 400
    assert otsd(X)[-1] <= psi(400, 50)  # control: the same points as box vertices stay below Psi
