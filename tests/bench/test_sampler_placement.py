"""Placing an outside sampler in our methods' taxonomy (bench.sampler_placement): a sampler that
behaves like one of our methods falls in its class, one between two classes in none, one with
too few seeds is not separated, a cycle through it merges; the control can fail."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boexplore.analysis.taxonomy import PartialOrder
from boexplore.bench import sampler_placement as sp
from boexplore.bench.sampler_report import control_holds

REPO = Path(__file__).resolve().parents[2]
RULE = sp.Rule()  # alpha 0.05, Holm, 2/3 of the problems, paired t-tests
LEVELS = {"random": 1.0, "mid": 0.6, "low": 0.2}


def _runs(source, method, level, seeds=8, problems=3, d=3, noise=0.02, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(problems):
        for s in range(seeds):
            value = level + noise * rng.standard_normal()
            rows.append(dict(source=source, problem=f"p{p}", d=d, budget=40, method=method,
                             seed=s, otsd_norm=value, oe_rel=value, cpu_s=0.0))  # fmt: skip
    return pd.DataFrame(rows)


def _ours(**kw):
    frames = [_runs("ours", m, v, seed=i, **kw) for i, (m, v) in enumerate(LEVELS.items())]
    return pd.concat(frames, ignore_index=True)


def _placed(level, seeds=8, seed=10, noise=0.02):
    ours = _ours()
    order = sp.our_order(ours, "otsd_norm", RULE, list(LEVELS))
    runs = _runs("optuna", "x", level, seeds=seeds, seed=seed, noise=noise)
    return sp.place(ours, runs, "optuna:x", "otsd_norm", RULE, order)


def test_our_order_is_the_taxonomy_rule_on_our_methods_alone():
    order = sp.our_order(_ours(), "otsd_norm", RULE, list(LEVELS))
    assert order.classes == [["low"], ["mid"], ["random"]]
    assert order.geq("random", "mid") and order.geq("mid", "low") and order.geq("random", "low")


def test_a_sampler_like_our_random_search_falls_in_its_class_and_a_shifted_one_does_not():
    same = _placed(1.0)
    assert (
        same.verdict() == "in random" and same.more_than == ("low", "mid") and same.less_than == ()
    )
    assert control_holds(same.verdict(), "random")
    shifted = _placed(0.6)  # the control that must fail: it explores like "mid"
    assert shifted.verdict() == "in mid" and not control_holds(shifted.verdict(), "random")


def test_a_sampler_between_two_classes_falls_in_none_and_says_where_it_is():
    p = _placed(0.4)
    assert p.classes == () and p.verdict() == "in no class of ours"
    assert p.more_than == ("low",) and p.less_than == ("mid", "random")


def test_too_few_seeds_leave_a_sampler_not_separated_from_several_classes():
    p = _placed(0.8, seeds=3, noise=0.2)
    assert len(p.classes) >= 2 and p.verdict().startswith("not separated from ")
    assert control_holds(p.verdict(), "random") == ("random" in p.verdict())


def test_a_cycle_through_the_sampler_merges_it_with_the_methods_on_the_cycle():
    # our order says a ⪰ b; the sampler's tests say s ⪰ a and b ⪰ s: a cycle s → a → b → s
    order = PartialOrder(nodes=["a", "b"], closure=np.array([[False, True], [False, False]]),
                         classes=[["a"], ["b"]])  # fmt: skip
    ours = pd.concat([_runs("ours", "a", 1.0), _runs("ours", "b", 3.0, seed=1)])
    p = sp.place(ours, _runs("ax", "ax", 2.0, seed=2), "ax:ax", "otsd_norm", RULE, order)
    assert p.cycle == ("a", "b") and p.classes == (0, 1)
    assert p.verdict() == "in a ≈ b (merged by a cycle through it)"


def test_a_sampler_label_may_not_be_one_of_ours():
    ours = _ours()
    order = sp.our_order(ours, "otsd_norm", RULE, list(LEVELS))
    with pytest.raises(ValueError, match="one of our methods"):
        sp.place(ours, _runs("optuna", "random", 1.0), "random", "otsd_norm", RULE, order)


def test_placement_table_and_seed_summary_per_subset():
    rows = pd.concat(
        [_ours(), _ours(d=50), _runs("optuna", "random", 1.0, seed=7),
         _runs("optuna", "random", 1.0, d=50, seed=8)], ignore_index=True,
    )  # fmt: skip
    table = sp.placement_table(rows, RULE, list(LEVELS))
    opt = table[table["source"] == "optuna"]
    assert len(opt) == 4 and set(opt["placed"]) == {"in random"}  # 2 subsets x 2 metrics
    summary = sp.seed_summary(rows, RULE)
    row = summary[(summary["subset"] == "high-d") & (summary["method"] == "low")].iloc[0]
    assert row["n_seeds"] == 8 and row["otsd_norm_lo"] < 0.2 < row["otsd_norm_hi"]


def test_the_rule_is_read_from_the_replicate_config():
    rule = sp.Rule.of_config(REPO / "config" / "replicate.yaml")
    assert (rule.alpha, rule.correction, rule.majority, rule.test) == (0.05, "holm", 0.667, "t")
    assert (rule.low_d_max, rule.high_d_min) == (10, 50)
