import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic import synthetic_trace

from boexplore.analysis.tours import (
    distance_matrix,
    held_karp,
    improve_tour,
    insertion_tour,
    or_opt,
    tour_length,
    tour_lower_bound,
    tour_quality,
    trace_tour_quality,
    two_opt,
)


def _brute(D):
    n = D.shape[0]
    return min(tour_length(D, (0, *p)) for p in itertools.permutations(range(1, n)))


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_held_karp_matches_brute_force(n):
    D = distance_matrix(np.random.default_rng(n).random((n, 3)))
    L, order = held_karp(D)
    assert L == pytest.approx(_brute(D))
    assert sorted(order) == list(range(n)) and tour_length(D, order) == pytest.approx(L)


def test_insertion_tour_equals_metrics_otsd():
    from boexplore.metrics import otsd

    X = np.random.default_rng(2).random((30, 4))
    D = distance_matrix(X)
    assert tour_length(D, insertion_tour(D)) == pytest.approx(float(otsd(X)[-1]))


@settings(max_examples=25, deadline=None)
@given(st.integers(5, 25), st.integers(1, 6), st.integers(0, 10_000))
def test_local_search_never_lengthens_and_stays_above_lower_bound(n, d, seed):
    X = np.random.default_rng(seed).random((n, d))
    D = distance_matrix(X)
    start = insertion_tour(D)
    L0 = tour_length(D, start)
    for improved in (two_opt(D, start), or_opt(D, start), improve_tour(D, start)):
        assert sorted(improved) == list(range(n))
        assert tour_length(D, improved) <= L0 + 1e-9
        assert tour_length(D, improved) >= tour_lower_bound(D) - 1e-9


def test_two_opt_reaches_optimum_in_convex_position():
    rng = np.random.default_rng(0)
    ang = rng.permutation(np.linspace(0, 2 * np.pi, 9, endpoint=False))
    X = np.c_[np.cos(ang), np.sin(ang)]
    D = distance_matrix(X)
    opt, _ = held_karp(D)
    assert tour_length(D, two_opt(D, list(range(9)))) == pytest.approx(opt)


@pytest.mark.parametrize("seed", range(5))
def test_local_search_reaches_held_karp_on_small_cases(seed):
    D = distance_matrix(np.random.default_rng(100 + seed).random((8, 2)))
    opt, _ = held_karp(D)
    assert tour_length(D, improve_tour(D, insertion_tour(D))) == pytest.approx(opt)


def test_tour_quality_ratios_and_methods():
    X = np.random.default_rng(5).random((9, 3))
    small = tour_quality(X, exact_max=11)
    assert small["tour_method"] == "held_karp" and small["ratio_best"] >= 1.0
    big = tour_quality(np.random.default_rng(6).random((40, 3)), exact_max=11)
    assert big["tour_method"] == "2opt+oropt"
    assert big["ratio_lb"] >= big["ratio_best"] >= 1.0
    dup = tour_quality(np.zeros((4, 2)))
    assert dup["ratio_best"] == 1.0
    with pytest.raises(ValueError, match="NaN"):
        tour_quality(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match="Held"):
        held_karp(np.zeros((20, 20)))


def test_trace_tour_quality_on_files(tmp_path):
    paths = []
    for i, kind in enumerate(["random", "cluster", "random"]):
        p = tmp_path / f"seed{i}.parquet"
        synthetic_trace(3, 30, kind=kind, seed=i).to_parquet(p)
        paths.append(p)
    out = trace_tour_quality(paths, prefix_sizes=[8, 20, 100], max_traces=2, seed=0)
    assert len(out) == 2 * 3 and set(out["n"]) == {8, 20, 30}
    assert (out["ratio_best"] >= 1).all()
    assert set(out["tour_method"]) == {"held_karp", "2opt+oropt"}


def test_trace_file_with_several_seeds_gives_one_trace_per_seed(tmp_path):
    import pandas as pd

    both = pd.concat(
        [synthetic_trace(2, 12, seed=3), synthetic_trace(2, 12, kind="cluster", seed=4)]
    )
    p = tmp_path / "seeds3-4.parquet"
    both.to_parquet(p)
    out = trace_tour_quality([p], prefix_sizes=[12], max_traces=10)
    assert sorted(out["seed"]) == [3, 4] and (out["n"] == 12).all()
    one = trace_tour_quality([p], prefix_sizes=[12], max_traces=1)
    assert len(one) == 1
    with pytest.raises(ValueError, match="max_traces"):
        trace_tour_quality([p], [5], max_traces=0)
