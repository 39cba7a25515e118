"""Paper 2's paired-difference rows (C2, C3), the stuck rule and its control, per-unit power."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.analysis.claimkit.power import family_seeds_needed
from boexplore.analysis.paper2.claims import DEFAULTS, claims_table
from boexplore.analysis.paper2.paired import Comparison, decide_family, seed_halves
from boexplore.analysis.paper2.stuck import StuckRuleError, stuck_control, stuck_flags
from boexplore.analysis.paper2.summary import late_lock_share

TH = {**DEFAULTS, "n_boot": 200}


# --- the per-seed lock share -----------------------------------------------------------------
def test_late_lock_share_cases():
    idx = np.array([3, 3, 3, 4])
    assert late_lock_share(idx, np.array([0.5, 0.5, 0.5, 0.0])) == 0.75
    # a neighbour within the gap tolerance is not a wrong point
    assert late_lock_share(idx, np.array([0.05, 0.05, 0.05, 0.0]), gap_min=0.1) == 0.0
    assert np.isnan(late_lock_share(np.array([]), np.array([])))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=30),
    st.floats(0, 1),
)
def test_late_lock_share_is_a_share_and_falls_with_the_tolerance(points, tol):
    idx = np.array(points)
    gap = idx / 5.0  # point 0 is the optimum
    share = late_lock_share(idx, gap, tol)
    assert 0.0 <= share <= 1.0
    assert share <= late_lock_share(idx, gap, 0.0)  # a larger tolerance never adds a lock
    if (idx == 0).all():
        assert share == 0.0


# --- synthetic per-seed tables ---------------------------------------------------------------
def _per_seed(spec: dict[str, dict[str, np.ndarray]], n: int) -> pd.DataFrame:
    """Per-seed rows: spec[problem][method] = (R_T per seed, lock share per seed)."""
    rows = []
    for pk, methods in spec.items():
        for m, (R, lock) in methods.items():
            for s in range(n):
                rows.append(
                    dict(
                        problem_key=pk,
                        problem="nn_realizable",
                        method=m,
                        seed=s,
                        R_T=float(R[s]),
                        R_T_over_T=float(R[s]) / 50,
                        slope=0.3,
                        ratio_decreasing=True,
                        late_frac_opt=1.0 - float(lock[s]),
                        late_lock_share=float(lock[s]),
                    )  # fmt: skip
                )
    return pd.DataFrame(rows)


N = 16
RNG = np.random.default_rng(0)
NOISE = RNG.uniform(0.9, 1.1, N)
LOCKED, FREE = np.ones(N), np.zeros(N)


def _methods(**over):
    base = {
        "rr_ts": (10 * NOISE, FREE),
        "gp_ts": (10 * NOISE[::-1], FREE),
        "random": (80 * NOISE, FREE),
        "gp_greedy": (20 * NOISE, LOCKED),
        "nn_warm": (12 * NOISE, LOCKED),
    }
    return {**base, **over}


def _claims(per, **th):
    return claims_table({**TH, "ablations": ["nn_warm"], **th}, per, ["p1", "p2"],
                        None, None, 0.1, None, None)  # fmt: skip


def _rows(claims, cid):
    return claims[claims.claim_id == cid]


# --- P2-C2 ---------------------------------------------------------------------------------------
def test_c2_paired_rows_decide_and_carry_the_ratio():
    per = _per_seed({"p1": _methods(), "p2": _methods()}, N)
    c2 = _rows(_claims(per), "P2-C2")
    assert len(c2) == 4 and (c2.verdict == "reproduced").all()
    gp = c2[c2.statistic.str.contains("gp_ts")].iloc[0]
    assert gp.value == pytest.approx(np.mean(20 * NOISE[::-1] - 10 * NOISE))
    assert gp.ci_low < gp.value < gp.ci_high
    assert "holm over 4" in gp.note and "R_T(rr_ts)/R_T(gp_ts)" in gp.note


def test_c2_fails_when_rr_ts_is_worse_and_is_undecidable_when_its_control_passes():
    worse = _per_seed({"p1": _methods(rr_ts=(45 * NOISE, FREE)), "p2": _methods()}, N)
    c2 = _rows(_claims(worse), "P2-C2")
    assert c2[c2.statistic.str.contains(r"\(p1\)")].verdict.tolist() == ["not reproduced"] * 2
    # random search as good as GP-TS: "random in rr_ts's place" passes, so the check cannot fail
    easy = _methods(random=(10 * NOISE[::-1] * 1.05, FREE))
    c2 = _rows(_claims(_per_seed({"p1": easy, "p2": easy}, N)), "P2-C2")
    gp = c2[c2.statistic.str.contains("gp_ts")]
    assert gp.verdict.str.contains("its control passes too").all()


# --- P2-C3 and the stuck rule ---------------------------------------------------------------
def test_stuck_rule_control_separates_explorers_from_greedy():
    per = _per_seed({"p1": _methods(), "p2": _methods()}, N)
    ok = stuck_control(per, ["p1", "p2"], TH)
    assert ok.validated and "gp_greedy 1.00" in ok.summary()
    # control that must fail: the late-play rule calls random search (never at x*) stuck
    late = per.assign(late_frac_opt=np.where(per.method == "random", 0.0, per.late_frac_opt))
    bad = stuck_control(late, ["p1", "p2"], {**TH, "stuck_rule": "late_play"})
    assert not bad.validated and "random is not rarely stuck" in bad.reason
    # a greedy control that never locks: the rule cannot show "often"
    quiet = per.assign(
        late_lock_share=np.where(per.method == "gp_greedy", 0.0, per.late_lock_share)
    )
    assert "gp_greedy is not often stuck" in stuck_control(quiet, ["p1", "p2"], TH).reason
    assert "no control runs" in stuck_control(per[per.method != "gp_greedy"], ["p1"], TH).reason


def test_stuck_flags_errors():
    with pytest.raises(StuckRuleError, match="stuck_rule"):
        stuck_flags(pd.DataFrame({"late_lock_share": [0.1]}), {**TH, "stuck_rule": "nope"})
    with pytest.raises(StuckRuleError, match="late_lock_share"):
        stuck_flags(pd.DataFrame({"x": [0.1]}), TH)


def test_c3_reproduced_only_with_a_validated_rule_and_failing_controls():
    per = _per_seed({"p1": _methods(), "p2": _methods()}, N)
    c3 = _rows(_claims(per), "P2-C3")
    assert len(c3) == 2 and (c3.verdict == "reproduced").all()
    assert (c3.value == 1.0).all() and "rr_ts on seed halves" in c3.iloc[0].note
    # an ablation stuck exactly as often as RR-TS (same seeds): no effect, not reproduced
    same = _methods(nn_warm=(12 * NOISE, FREE))
    c3 = _rows(_claims(_per_seed({"p1": same, "p2": same}, N)), "P2-C3")
    assert not c3.verdict.str.fullmatch("reproduced").any()
    # stuck rule fails its control (GP-TS locks as often as the greedy policy)
    loud = _methods(gp_ts=(10 * NOISE, LOCKED))
    c3 = _rows(_claims(_per_seed({"p1": loud, "p2": loud}, N)), "P2-C3")
    assert c3.verdict.str.startswith("undecidable: the stuck rule fails its control").all()


def test_c3_row_undecidable_where_even_greedy_is_not_stuck():
    p2 = _methods(gp_greedy=(20 * NOISE, FREE), nn_warm=(12 * NOISE, FREE))
    per = _per_seed({"p1": _methods(), "p2": p2}, N)
    c3 = _rows(_claims(per), "P2-C3")
    row = c3[c3.statistic.str.contains(r"\(p2")].iloc[0]
    assert (
        row.verdict.startswith("undecidable") and "greedy control is not often stuck" in row.verdict
    )


# --- the family test and the power analysis --------------------------------------------------
def test_family_holm_and_halves():
    s = pd.Series(np.arange(7.0), index=[5, 1, 2, 3, 4, 6, 0]).sort_index()
    h1, h2 = seed_halves(s)
    assert list(h1.index) == list(h2.index) == [0, 1, 2] and set(h1) & set(h2) == set()
    rng = np.random.default_rng(1)
    comps = [Comparison(f"c{i}", "p", "a", f"b{i}", rng.normal(mu, 1, 12))
             for i, mu in enumerate([2.0, 0.0, -2.0])]  # fmt: skip
    fam = decide_family(comps, TH)
    assert (fam.p_adj >= fam.p).all() and fam.outcome.tolist() == ["for", "none", "against"]
    with pytest.raises(ValueError, match="claims.test"):
        decide_family(comps, {**TH, "test": "nope"})


def test_family_seeds_needed_orders_effects_and_leaves_zero_undecided():
    need = family_seeds_needed([2.0, 0.5, 0.0], 0.05, [4, 8, 16, 32, 64, 128], n_sim=300)
    assert need[0] is not None and need[1] is not None and need[0] < need[1]
    assert need[2] is None
    # Holm over more units needs at least as many seeds as the same effect alone
    alone = family_seeds_needed([0.5], 0.05, [4, 8, 16, 32, 64, 128], n_sim=300)[0]
    assert alone is not None and need[1] >= alone


# --- sizes for the interval rows -------------------------------------------------------------
def test_interval_rows_name_the_size_that_decides_them():
    spread = _per_seed({"p1": _methods()}, N)
    mine = spread.method == "rr_ts"
    spread.loc[mine, "slope"] = np.linspace(0.6, 1.2, mine.sum())  # median 0.9 = slope_max
    spread.loc[mine, "slope"] += 0.02  # just above the threshold: undecided at 16 seeds
    c1 = claims_table({**TH, "ablations": []}, spread, ["p1"], None, None, 0.1, None, None)
    verdict = c1[c1.claim_id == "P2-C1"].iloc[0].verdict
    assert verdict.startswith("undecidable at this scale: needs") and verdict.endswith("seeds")
    assert int(verdict.split("needs ")[1].split()[0]) > N
    # control: slopes far below the threshold are decided, no size is named
    low = _per_seed({"p1": _methods()}, N)
    c1 = claims_table({**TH, "ablations": []}, low, ["p1"], None, None, 0.1, None, None)
    assert c1[c1.claim_id == "P2-C1"].iloc[0].verdict == "reproduced"


def test_rule_sensitivity_grid_validates_only_where_the_greedy_lock_counts():
    from boexplore.analysis.paper2.stuck import rule_sensitivity

    rng = np.random.default_rng(2)
    rows = []
    for method in ("gp_ts", "random", "gp_greedy"):
        for seed in range(16):
            idx = rng.integers(0, 20, 20) if method != "gp_greedy" else np.full(20, 7)
            gap = np.where(idx == 0, 0.0, 0.3)  # every wrong point is 0.3 below the optimum
            rows.append(pd.DataFrame({"problem_key": "p", "problem": "x", "method": method,
                                      "seed": seed, "eval_index": np.arange(20), "index": idx,
                                      "inst_regret": gap, "cum_regret": np.cumsum(gap),
                                      "regret": gap, "at_optimum": idx == 0}))  # fmt: skip
    grid = rule_sensitivity(pd.concat(rows), ["p"], TH, [0.1, 0.5], [0.5], late_window=10)
    assert grid["validated"].tolist() == [True, False]  # at 0.5 the greedy lock is "near x*"
    assert grid.loc[0, "gp_greedy_k"] == 16 and grid.loc[1, "gp_greedy_k"] == 0
