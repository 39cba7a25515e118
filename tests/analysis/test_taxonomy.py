import numpy as np
import pandas as pd
import pytest
from synthetic import synthetic_metrics

from boexplore.analysis.summaries import final_rows
from boexplore.analysis.taxonomy import (
    dimension_subsets,
    dominance,
    pairwise_tests,
    partial_order,
    taxonomy,
    transitive_closure,
)


def _final(levels, problems=(("a", 2), ("b", 5), ("c", 60)), seeds=6, noise=0.01):
    return final_rows(synthetic_metrics(problems=problems, levels=levels, seeds=seeds, noise=noise))


def test_strictly_more_explorative_method_ranks_above():
    final = _final({"hi": 0.9, "lo": 0.2})
    dom, order = taxonomy(final, "otsd_norm")
    assert order.geq("hi", "lo") and not order.geq("lo", "hi")
    row = dom[(dom.a == "hi") & (dom.b == "lo")].iloc[0]
    assert row.n_problems == 3 and row.n_support == 3


def test_designed_chain_is_recovered_with_hasse_edges():
    levels = {"m0": 1.0, "m1": 0.75, "m2": 0.5, "m3": 0.25}
    _, order = taxonomy(_final(levels), "otsd_norm")
    names = ["m0", "m1", "m2", "m3"]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert order.geq(a, b)
    edges = {(order.classes[u][0], order.classes[v][0]) for u, v in order.hasse_edges()}
    assert edges == {("m0", "m1"), ("m1", "m2"), ("m2", "m3")}
    layer = dict(zip((c[0] for c in order.classes), order.layers(), strict=True))
    assert [layer[m] for m in names] == [0, 1, 2, 3]


def test_indistinguishable_methods_stay_incomparable():
    final = _final({"x": 0.5, "y": 0.5, "z": 0.1}, noise=0.05)
    _, order = taxonomy(final, "otsd_norm")
    assert not order.geq("x", "y") and not order.geq("y", "x")
    assert order.geq("x", "z") and order.geq("y", "z")
    edges = {(order.classes[u][0], order.classes[v][0]) for u, v in order.hasse_edges()}
    assert edges == {("x", "z"), ("y", "z")}


def test_majority_rule_needs_clear_majority():
    # 'a' exceeds 'b' on one problem only, the reverse on another: no relation.
    rows = []
    for problem, (va, vb) in {"p1": (1.0, 0.0), "p2": (0.0, 1.0), "p3": (0.5, 0.5)}.items():
        for s in range(6):
            jitter = 0.01 * s
            rows += [
                {"problem": problem, "method": "a", "seed": s, "v": va + jitter},
                {"problem": problem, "method": "b", "seed": s, "v": vb + jitter},
            ]
    tests = pairwise_tests(pd.DataFrame(rows), "v")
    dom = dominance(tests)
    assert not dom["dominates"].any()
    with pytest.raises(ValueError, match="majority"):
        dominance(tests, majority=0.5)


def test_cycle_is_merged_into_one_class():
    dom = pd.DataFrame(
        {
            "a": ["x", "y", "z"],
            "b": ["y", "z", "x"],
            "n_problems": 1,
            "n_support": 1,
            "support_frac": 1.0,
            "dominates": True,
        }
    )
    order = partial_order(dom, ["x", "y", "z", "w"])
    assert sorted(map(sorted, order.classes)) == [["w"], ["x", "y", "z"]]
    assert order.hasse_edges() == []


def test_transitive_closure():
    rel = np.zeros((3, 3), dtype=bool)
    rel[0, 1] = rel[1, 2] = True
    assert transitive_closure(rel)[0, 2]


def test_two_seeds_with_wilcoxon_gives_no_relation():
    final = _final({"hi": 0.9, "lo": 0.2}, seeds=2)
    _, order = taxonomy(final, "otsd_norm", test="wilcoxon")
    assert not order.geq("hi", "lo")
    with pytest.raises(ValueError, match="unknown paired test"):
        pairwise_tests(final, "otsd_norm", test="z")


def test_dimension_subsets():
    final = _final({"a": 1.0, "b": 0.5})
    subs = dimension_subsets(final, 10, 50)
    assert set(subs["low_d"]["dim"]) == {2, 5} and set(subs["high_d"]["dim"]) == {60}
