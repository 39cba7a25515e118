"""The domain distance: a metric, Hamming on discrete variables, the box's on a box, blind to labels."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.metrics import (
    Binary,
    Categorical,
    Continuous,
    Domain,
    Integer,
    domain_distances,
    parse_domain,
)
from boexplore.metrics.distances import pairwise_distances


@st.composite
def variables(draw) -> object:
    kind = draw(st.sampled_from(["binary", "categorical", "integer", "continuous"]))
    if kind == "binary":
        return Binary()
    if kind == "categorical":
        return Categorical(draw(st.integers(2, 7)))
    lo = draw(st.integers(-5, 5))
    hi = lo + draw(st.integers(1, 9))
    return Integer(lo, hi) if kind == "integer" else Continuous(float(lo), float(hi))


@st.composite
def domain_points(draw, min_points: int = 2, max_points: int = 8, max_width: int = 6):
    """A domain and a few raw points on it, from a hypothesis seed."""
    dom = Domain(tuple(draw(st.lists(variables(), min_size=1, max_size=max_width))))
    T = draw(st.integers(min_points, max_points))
    seed = draw(st.integers(0, 2**31 - 1))
    X = dom.sample(np.random.default_rng(seed), T)
    if T > 2 and draw(st.booleans()):  # repeated points happen in BO
        X[-1] = X[0]
    return dom, X


@settings(max_examples=60, deadline=None)
@given(domain_points())
def test_distance_is_a_metric_bounded_by_the_diameter(case) -> None:
    dom, X = case
    D = domain_distances(X, dom)
    np.testing.assert_array_equal(D, D.T)
    assert np.all(np.diag(D) == 0.0) and np.all(D >= 0.0)
    same = np.all(X[:, None, :] == X[None, :, :], axis=-1)
    assert np.all((D == 0.0) == same)  # zero exactly for equal points
    tri = D[:, None, :] <= D[:, :, None] + D[None, :, :] + 1e-12  # d(i,k) <= d(i,j) + d(j,k)
    assert tri.all()
    assert D.max() <= dom.diameter + 1e-12


@settings(max_examples=60, deadline=None)
@given(domain_points(), st.floats(-1e6, 1e6), st.floats(1e-6, 1e6))
def test_description_reads_back_as_the_same_domain(case, lower, span) -> None:
    dom, _ = case
    odd = Domain((*dom.variables, Continuous(lower, lower + span)))
    assert parse_domain(odd.spec) == odd and parse_domain(dom.spec) == dom


@settings(max_examples=60, deadline=None)
@given(domain_points(), st.integers(0, 2**31 - 1))
def test_relabelling_levels_and_permuting_variables_change_no_distance(case, seed) -> None:
    dom, X = case
    rng = np.random.default_rng(seed)
    Y = X.copy()
    for j, v in enumerate(dom.variables):
        if isinstance(v, Binary | Categorical):
            Y[:, j] = rng.permutation(v.levels)[X[:, j].astype(int)]
    perm = rng.permutation(dom.width)
    permuted = Domain(tuple(dom.variables[j] for j in perm))
    D = domain_distances(X, dom)
    np.testing.assert_allclose(domain_distances(Y, dom), D, rtol=0, atol=1e-12)
    np.testing.assert_allclose(domain_distances(X[:, perm], permuted), D, rtol=0, atol=1e-12)


def test_relabelling_control_an_ordered_code_would_not_be_invariant() -> None:
    """Control: read as integers (ordered), relabelled category codes do change distances."""
    X = np.array([[0.0], [1.0], [4.0]])
    relabel = np.array([4, 1, 0, 2, 3])[X[:, 0].astype(int)][:, None].astype(float)
    as_cat, as_int = Domain((Categorical(5),)), Domain((Integer(0, 4),))
    np.testing.assert_array_equal(domain_distances(X, as_cat), domain_distances(relabel, as_cat))
    assert not np.allclose(domain_distances(X, as_int), domain_distances(relabel, as_int))


@settings(max_examples=60, deadline=None)
@given(domain_points(min_points=2, max_points=2), st.data())
def test_changing_one_variable_moves_the_distance_by_at_most_one(case, data) -> None:
    dom, X = case
    j = data.draw(st.integers(0, dom.width - 1))
    Y = X.copy()
    Y[1, j] = dom.sample(np.random.default_rng(data.draw(st.integers(0, 999))), 1)[0, j]
    before, after = domain_distances(X, dom)[0, 1], domain_distances(Y, dom)[0, 1]
    assert abs(after - before) <= 1.0 + 1e-12


def test_binary_is_hamming_and_box_is_euclidean() -> None:
    rng = np.random.default_rng(3)
    B = rng.integers(0, 2, size=(12, 9)).astype(float)
    hamming = (B[:, None, :] != B[None, :, :]).sum(-1)
    np.testing.assert_array_equal(domain_distances(B, Domain((Binary(),) * 9)), hamming)
    C = rng.random((12, 4))
    np.testing.assert_array_equal(domain_distances(C, Domain.box(4)), pairwise_distances(C))
    M = np.column_stack([B[:, :2], C[:, :2] * 10 - 5])  # mixed: mismatches + scaled Euclidean
    dom = Domain((Binary(), Binary(), Continuous(-5, 5), Continuous(-5, 5)))
    expect = (B[:, None, :2] != B[None, :, :2]).sum(-1) + np.linalg.norm(
        C[:, None, :2] - C[None, :, :2], axis=-1
    )
    np.testing.assert_allclose(domain_distances(M, dom), expect, rtol=1e-12)
    assert Domain((Binary(),) * 9).diameter == 9 and dom.diameter == 2 + math.sqrt(2)
