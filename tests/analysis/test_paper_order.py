import pandas as pd
import pytest
from synthetic import DEFAULT_LEVELS, synthetic_metrics

from boexplore.analysis.paper_order import (
    DEFAULT_GROUPS,
    DEFAULT_PAPER_ORDER,
    compare_pairs,
    kendall_with_paper,
    paper_levels,
)
from boexplore.analysis.summaries import cell_medians, final_rows
from boexplore.analysis.taxonomy import taxonomy


def _cells(levels, seeds=5):
    final = final_rows(synthetic_metrics(levels=levels, seeds=seeds))
    return final, cell_medians(final, ["otsd_norm"])


def test_identical_order_gives_tau_one_and_all_pairs_agree():
    final, cells = _cells(DEFAULT_LEVELS)
    levels = paper_levels(DEFAULT_GROUPS, DEFAULT_PAPER_ORDER, sorted(DEFAULT_LEVELS))
    tau, lo, hi, n = kendall_with_paper(cells, "otsd_norm", levels, n_boot=100)
    # mes and kg share a paper level but differ slightly in data: tau-b just below 1
    assert tau > 0.95 and n == 8
    _, order = taxonomy(final, "otsd_norm")
    pairs = compare_pairs(order, levels)
    assert (pairs["status"] == "disagree").sum() == 0
    assert (pairs["status"] == "agree").sum() >= 27


def test_exactly_identical_levels_tau_is_one():
    groups = {"g1": ["a"], "g2": ["b"], "g3": ["c"]}
    levels = paper_levels(groups, [["g1"], ["g2"], ["g3"]], ["a", "b", "c"])
    _, cells = _cells({"a": 0.9, "b": 0.5, "c": 0.1})
    assert kendall_with_paper(cells, "otsd_norm", levels, n_boot=50)[0] == pytest.approx(1.0)


def test_reversed_order_gives_tau_minus_one_and_disagreements():
    rev = {
        k: 1.1 - v
        for k, v in {"random": 1.0, "ucb_high": 0.8, "logei": 0.5, "pi": 0.3, "greedy": 0.1}.items()
    }
    final, cells = _cells(rev)
    levels = paper_levels(DEFAULT_GROUPS, DEFAULT_PAPER_ORDER, sorted(rev))
    tau = kendall_with_paper(cells, "otsd_norm", levels, n_boot=50)[0]
    assert tau == pytest.approx(-1.0)
    _, order = taxonomy(final, "otsd_norm")
    assert (compare_pairs(order, levels)["status"] == "disagree").all()


def test_missing_labels_are_noted_and_bad_group_raises():
    lv = paper_levels(DEFAULT_GROUPS, DEFAULT_PAPER_ORDER, ["random", "pi"])
    assert set(lv.level) == {"random", "pi"}
    assert any("'jes'" in n for n in lv.notes)
    with pytest.raises(ValueError, match="absent from analysis.groups"):
        paper_levels({"a": ["x"]}, [["a"], ["nope"]], ["x"])


def test_empty_cells():
    lv = paper_levels({"a": ["x"]}, [["a"]], ["x"])
    empty = pd.DataFrame(columns=["problem", "dim", "method", "otsd_norm"])
    assert kendall_with_paper(empty, "otsd_norm", lv)[3] == 0
