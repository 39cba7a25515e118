"""The claims toolkit both papers share: verdict rules, interval statistics, Markdown writer,
and paper 2's one-function-per-claim assembly."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.analysis.claimkit.markdown import markdown_cell, markdown_table
from boexplore.analysis.claimkit.stats import paired_ratio_ci, spearman_ci
from boexplore.analysis.claimkit.verdict import (
    NOT_REPRODUCED,
    REPRODUCED,
    UNDECIDED,
    interval_verdict,
    upper_interval_verdict,
)
from boexplore.analysis.paper2.claims import (
    Paper2Evidence,
    claim_p2_c2,
    claim_p2_c3,
    claim_p2_c4,
    claim_p2_c5,
    claims_table,
)
from boexplore.io import atomic_write_text

finite = st.floats(-1e3, 1e3, allow_nan=False)


@given(finite, finite, finite)
def test_upper_verdict_mirrors_the_lower_one(a, b, thr):
    lo, hi = min(a, b), max(a, b)
    if thr in (lo, hi):
        return  # the two rules differ only at equality (>= vs >)
    mirrored = interval_verdict(-(lo + hi) / 2, -hi, -lo, -thr, n=5)
    assert upper_interval_verdict(lo, hi, thr) == mirrored


def test_upper_verdict_cases_and_nan():
    assert upper_interval_verdict(0.1, 0.4, 0.5) == REPRODUCED
    assert upper_interval_verdict(0.5, 0.9, 0.5) == NOT_REPRODUCED
    assert upper_interval_verdict(0.3, 0.7, 0.5) == UNDECIDED
    assert upper_interval_verdict(math.nan, 0.4, 0.5) == UNDECIDED


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0.1, 10), min_size=3, max_size=12),
    st.floats(0.1, 10),
)
def test_paired_ratio_scales_and_brackets_the_estimate(values, c):
    a = np.array(values)
    b = a[::-1].copy() + 1.0
    v, lo, hi = paired_ratio_ci(a, b, n_boot=200)
    cv, clo, chi = paired_ratio_ci(c * a, b, n_boot=200)
    assert lo <= v <= hi
    assert (cv, clo, chi) == pytest.approx((c * v, c * lo, c * hi), rel=1e-9)


def test_paired_ratio_undefined_without_positive_reference():
    assert all(np.isnan(paired_ratio_ci(np.ones(4), -np.ones(4))))
    assert all(np.isnan(paired_ratio_ci(np.ones(0), np.ones(0))))


def test_spearman_ci_monotone_and_control():
    x = np.arange(20.0)
    rho, lo, hi = spearman_ci(x, np.exp(x / 5), n_boot=200)
    assert rho == pytest.approx(1.0) and lo == pytest.approx(1.0)
    # control: y independent of x -> the interval covers 0, the statistic cannot "find" a trend
    y = np.random.default_rng(3).permutation(20).astype(float)
    rho, lo, hi = spearman_ci(x, y, n_boot=400)
    assert lo < 0 < hi
    assert all(np.isnan(spearman_ci(x, np.ones(20))))


def test_markdown_table_escapes_pipes_and_formats_missing():
    df = pd.DataFrame({"a": [1.23456, math.nan], "note": ["x | y", "ok"]})
    text = markdown_table(df, missing="n/a")
    lines = text.splitlines()
    assert lines[0] == "| a | note |" and len(lines) == 4
    assert "x \\| y" in lines[2] and "1.23" in lines[2] and "n/a" in lines[3]
    assert markdown_table(df, ["note"]).splitlines()[0] == "| note |"
    assert markdown_cell(np.float32(0.5)) == "0.5"


def _per_seed(method_stuck: dict[str, float], seeds: int = 8) -> pd.DataFrame:
    rows = []
    for method, late in method_stuck.items():
        for s in range(seeds):
            rows.append({"problem_key": "p", "method": method, "seed": s, "slope": 0.5,
                         "R_T": 10.0 + s, "R_T_over_T": 0.1, "ratio_decreasing": 1.0,
                         "late_frac_opt": late})  # fmt: skip
    return pd.DataFrame(rows)


def test_p2_c3_needs_the_ablation_stuck_more_than_the_policy():
    # late-play rule; explorers never stuck, the greedy control always (16 seeds: 0/16 has an
    # exact 90 % upper bound below 0.2, so the rule passes its control)
    th = {"n_boot": 200, "ablations": ["nn_greedy"], "stuck_rule": "late_play"}
    controls = {"gp_ts": 0.9, "random": 0.9, "gp_greedy": 0.1}
    ev = Paper2Evidence(th, _per_seed({"rr_ts": 0.9, "nn_greedy": 0.1, **controls}, 16), ["p"])
    assert claim_p2_c3(ev)["p"][0]["verdict"] == "reproduced"
    # control: the policy is stuck as often as the ablation -> no difference, not reproduced
    both = Paper2Evidence(th, _per_seed({"rr_ts": 0.1, "nn_greedy": 0.1, **controls}, 16), ["p"])
    verdict = claim_p2_c3(both)["p"][0]["verdict"]
    assert verdict.startswith("undecidable at this scale: not decided")


def test_claims_without_evidence_give_no_rows():
    ev = Paper2Evidence({"n_boot": 50}, _per_seed({"random": 0.1}), ["p"])
    assert claim_p2_c2(ev) == {}  # no policy runs: no comparison
    assert claim_p2_c4(ev) == [] and claim_p2_c5(ev) == []
    table = claims_table({"n_boot": 50}, ev.e1_seeds, ["p"], None, None, 0.1, None, None)
    assert list(table["claim_id"]) == ["P2-C1"] and table.iloc[0]["verdict"] == "inconclusive"


def test_atomic_write_text_rejects_swapped_arguments(tmp_path):
    target = tmp_path / "t.md"
    with pytest.raises(ValueError, match="swapped"):
        atomic_write_text(str(target), "# a table\n| x |\n")
    assert not list(tmp_path.iterdir())  # nothing half-written
