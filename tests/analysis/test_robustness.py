"""Budget curves, rank test, seed-bootstrap stability, one problem out and settings (issues 22/27/28).

Each check has a control that must fail: shuffled method labels never give a stable
"reproduced", a verdict resting on two problems changes when one is left out, and a
UCB beta that breaks C5 is reported as such in the settings range.
"""

import math

import numpy as np
import pandas as pd
import pytest
import yaml
from analysis.test_claims import GOOD, VARIANTS, _run
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from boexplore.analysis.boundary import boundary_share, boundary_table
from boexplore.analysis.claimkit.prefixes import holds_from
from boexplore.analysis.claimkit.stats import (
    min_attainable_p,
    paired_t_two_sided,
    sign_test_two_sided,
    wilcoxon_two_sided,
)
from boexplore.analysis.claimkit.verdict import MISSING, NOT_REPRODUCED, REPRODUCED, UNDECIDED
from boexplore.analysis.paper1.claims_release import (
    ROBUST_COLUMNS,
    released_claims,
    write_released_claims,
)
from boexplore.analysis.paper1.robustness import decisions
from boexplore.analysis.paper1.sensitivity import range_text
from boexplore.analysis.paper1.views import final_at_fraction, final_at_steps, resample_seeds
from boexplore.analysis.summaries import final_rows
from boexplore.workflow_config import is_excluded

FAST = {
    "robustness": {"n_resamples": 12, "inner_boot": 30, "bo_steps": [2]},
    "sensitivity": {
        "ucb_beta": {"ucb_low": 0.5, "ucb": 2.0, "ucb_high": 16.0},
        "ts_maximiser": {"ts": "candidates"},
    },
}


def _key(df: pd.DataFrame) -> dict[str, pd.Series]:
    return {f"{r.claim_id}{('/' + r.variant) if r.variant else ''}": r for r in df.itertuples()}


@pytest.fixture(scope="module")
def designed():
    r = _run(variants=VARIANTS, overrides=GOOD, section=FAST)
    return r, released_claims(r)


# --- statistics ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=12))
def test_closed_form_t_matches_scipy(xs):
    d = np.asarray(xs)
    p, mean = paired_t_two_sided(d)
    if np.ptp(d) > 1e-9:
        assert p == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-9, abs=1e-12)
    assert mean == pytest.approx(d.mean())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=10))
def test_rank_tests_are_sign_symmetric_and_floored(xs):
    d = np.asarray(xs)
    nz = int(np.count_nonzero(d))
    for test, fn in (("wilcoxon", wilcoxon_two_sided), ("sign", sign_test_two_sided)):
        p, _ = fn(d)
        assert p == pytest.approx(fn(-d)[0])
        if nz:
            assert p >= min_attainable_p(test, nz) - 1e-12


def test_wilcoxon_cannot_survive_holm_over_six_at_eight_seeds():
    assert min_attainable_p("wilcoxon", 8) == pytest.approx(0.0078125)
    assert 6 * min_attainable_p("wilcoxon", 8) < 0.05 < 7 * min_attainable_p("wilcoxon", 8)


# --- views --------------------------------------------------------------------------------


def test_full_fraction_is_the_final_table_and_prefixes_shrink():
    r = _run(section=FAST)
    full = final_at_fraction(r.metrics, 1.0)
    ref = final_rows(r.metrics)
    assert (full["n"].to_numpy() == ref["n"].to_numpy()).all()
    half = final_at_fraction(r.metrics, 0.5)
    assert (half["n"] <= np.ceil(0.5 * ref["n"].to_numpy())).all()
    steps = final_at_steps(r.metrics, 2)
    assert (steps["iteration"] <= 2).all() and len(steps) == len(ref)
    assert final_at_steps(r.metrics, 10_000).empty


def test_seed_resample_keeps_pairs():
    r = _run(section=FAST)
    res = resample_seeds(r.final, np.random.default_rng(3))
    orig = r.final.set_index(["problem", "method", "seed"])["otsd_norm"]
    for (problem, new_seed), g in res.groupby(["problem", "seed"]):
        # every method of one resampled seed comes from ONE original seed
        sources = {
            s
            for s in r.final["seed"].unique()
            if all(
                np.isclose(orig[(problem, m, s)], v)
                for m, v in zip(g["method"], g["otsd_norm"], strict=True)
            )
        }
        assert sources, (problem, new_seed)
    assert (
        res.groupby("problem")["seed"]
        .nunique()
        .eq(r.final.groupby("problem")["seed"].nunique())
        .all()
    )


@pytest.mark.parametrize(
    ("decs", "start"),
    [
        ([UNDECIDED] * 4, "decided at no prefix (25/50/75/100 %: U/U/U/U)"),
        ([UNDECIDED, NOT_REPRODUCED, UNDECIDED, UNDECIDED], "reproduced at no prefix"),
        ([NOT_REPRODUCED, REPRODUCED, REPRODUCED, REPRODUCED], "reproduced from 50 %"),
        ([REPRODUCED, REPRODUCED, UNDECIDED, NOT_REPRODUCED], "reproduced at 25 % but not"),
    ],
)
def test_budget_trend_says_what_the_prefixes_decided(decs, start):
    """A claim undecided at every prefix is not called 'not reproduced'."""
    from boexplore.analysis.claimkit.prefixes import budget_summary

    curves = pd.DataFrame(
        {"claim_id": "C", "variant": "", "part": "", "prefix_kind": "fraction",
         "prefix": [0.25, 0.5, 0.75, 1.0], "decision": decs, "value": [0.1, 0.2, 0.3, 0.4]}
    )  # fmt: skip
    trend = budget_summary(curves)["budget_trend"].iloc[0]
    assert trend.startswith(start), trend


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([REPRODUCED, NOT_REPRODUCED, UNDECIDED]), min_size=1, max_size=6))
def test_holds_from_is_the_start_of_the_final_reproduced_run(decs):
    prefixes = [(i + 1) / len(decs) for i in range(len(decs))]
    h = holds_from(prefixes, decs)
    if decs[-1] != REPRODUCED:
        assert math.isnan(h)
    else:
        i = prefixes.index(h)
        assert all(d == REPRODUCED for d in decs[i:])
        assert i == 0 or decs[i - 1] != REPRODUCED


# --- released claims on designed data -----------------------------------------------------


def test_designed_verdicts_are_stable_early_and_keep_the_old_columns(designed, tmp_path):
    r, rel = designed
    c = _key(rel.claims)
    assert list(rel.claims.columns[-len(ROBUST_COLUMNS) :]) == ROBUST_COLUMNS
    assert {"claim_id", "variant", "verdict", "decision", "needs", "note"} <= set(
        rel.claims.columns
    )
    for cid in ("P1-C1", "P1-C2", "P1-C4/ts", "P1-C5", "P1-C6", "P1-C7"):
        row = c[cid]
        assert row.decision == REPRODUCED, (cid, row.note)
        assert row.stability >= 0.8 and row.stable, cid
        assert math.isfinite(row.holds_from), (cid, row.budget_trend)
        assert row.lopo_n == 6
    # budget table: one claim row per prefix and claim row, parts with effects
    b = rel.budget
    fr = b[(b["prefix_kind"] == "fraction") & (b["part"] == "")]
    assert sorted(fr["prefix"].unique()) == [0.25, 0.5, 0.75, 1.0]
    full = fr[fr["prefix"] == 1.0].set_index(["claim_id", "variant"])["decision"]
    for row in rel.claims.itertuples():
        if row.claim_id.startswith("P1-U"):  # the uses are decided once, on their own split
            continue
        assert full[(row.claim_id, row.variant)] == row.decision  # same rule at 100 %
    write_released_claims(
        rel, *(tmp_path / f for f in ("c.csv", "c.md", "p.csv", "u.csv", "b.csv", "s.csv"))
    )
    assert "What each verdict depends on" in (tmp_path / "c.md").read_text()
    from boexplore.plotting.budget import budget_panels, plot_budget_curves

    table = pd.read_csv(tmp_path / "b.csv")
    out = plot_budget_curves(table, tmp_path / "budget.png")
    assert out[0].stat().st_size > 10_000
    # a claim without data at every prefix (a tier that runs none of its methods) gets no panel
    panels = budget_panels(table)
    assert ("P1-C6", "") in panels
    gone = table.copy()
    gone.loc[gone["claim_id"] == "P1-C6", "decision"] = MISSING
    assert budget_panels(gone) == [k for k in panels if k[0] != "P1-C6"]


def test_sensitivity_names_the_beta_that_breaks_c5(designed):
    _, rel = designed
    s = rel.sensitivity
    c5 = s[s["claim_id"] == "P1-C5"].set_index("setting")["decision"]
    # designed: EI between UCB(2) in both subsets; UCB(16) explores more than EI everywhere,
    # UCB(0.5) less -> only beta = 2 reproduces C5 (the control settings must fail)
    assert c5["2"] == REPRODUCED
    assert c5["16"] == NOT_REPRODUCED and c5["0.5"] == NOT_REPRODUCED
    row = _key(rel.claims)["P1-C5"]
    assert "reproduced for UCB β = 2" in row.settings_range and row.default_setting == "UCB β = 2"
    assert _key(rel.claims)["P1-C4/ts"].default_setting == "TS maximiser: candidates"
    c7 = s[s["claim_id"] == "P1-C7"]
    where = c7[c7["dimension"] == "factor @ d-range"].set_index("setting")["decision"]
    # the synthetic variants run on both sides: C7 holds for each factor on each side
    assert set(where.index) == {
        f"{f} @ {d}" for f in ("trust_region", "raasp") for d in ("low-d", "high-d")
    }
    assert (where == REPRODUCED).all()
    # and with or without the activity filter (every unit's mechanism counts as acting here)
    acted = c7[c7["dimension"] == "c7_activity_filter"].set_index("setting")["decision"]
    assert set(acted.index) == {
        f"{f} {s}"
        for f in ("trust_region", "raasp")
        for s in ("with the activity filter", "without it")
    }
    assert (acted == REPRODUCED).all()


def test_a_variant_row_is_decided_under_its_own_setting():
    from boexplore.analysis.paper1.sensitivity import variant_default_setting

    claims = pd.DataFrame(
        {
            "claim_id": ["P1-C4", "P1-C4", "P1-C5"],
            "variant": ["ts", "ts_polish", ""],
            "default_setting": ["TS maximiser: candidates"] * 2 + ["UCB β = 2"],
        }
    )
    sens = pd.DataFrame(
        {
            "claim_id": ["P1-C4", "P1-C4", "P1-C5"],
            "dimension": ["ts_maximiser", "ts_maximiser", "ucb_beta"],
            "setting": ["candidates", "polished", "2"],
            "value": ["ts", "ts_polish", "ucb"],
        }
    )
    got = variant_default_setting(claims, sens, {"ts": ["ts"], "ts_polish": ["ts_polish"]})
    assert got.tolist() == ["TS maximiser: candidates", "TS maximiser: polished", "UCB β = 2"]


def test_range_text_for_a_contiguous_beta_interval():
    rows = pd.DataFrame(
        {
            "dimension": "ucb_beta",
            "setting": ["0.1", "0.5", "2", "16"],
            "decision": [NOT_REPRODUCED, REPRODUCED, REPRODUCED, UNDECIDED],
        }
    )
    text = range_text(rows)
    assert text.startswith("reproduced for β ∈ [0.5, 2]")
    assert "not reproduced for UCB β = 0.1" in text and "undecided for UCB β = 16" in text
    assert text.endswith("(4 tested)")
    same = rows.assign(decision=NOT_REPRODUCED)
    assert range_text(same) == "not reproduced for every tested UCB β (4 tested)"


# --- controls -----------------------------------------------------------------------------


def test_shuffled_labels_never_give_a_stable_reproduction():
    r = _run(variants=VARIANTS, overrides=GOOD, section=FAST)
    rng = np.random.default_rng(0)
    f = r.final.copy()
    for _, idx in f.groupby(["problem", "seed"]).groups.items():
        f.loc[idx, "method"] = rng.permutation(f.loc[idx, "method"].to_numpy())
    from boexplore.analysis.paper1.robustness import stability
    from boexplore.analysis.paper1.views import rederive

    shuffled = rederive(r, f, 100)
    full = decisions(shuffled)
    stab = stability(shuffled, full).set_index(["claim_id", "variant"])
    for row in full.itertuples():
        if row.claim_id in ("P1-C1",):  # OTSD ~ OE across cells survives label shuffling
            continue
        s = stab.loc[(row.claim_id, row.variant)]
        assert row.decision != REPRODUCED or not s["stable"], (row.claim_id, row.variant)


def test_one_problem_out_names_the_problem_that_decides():
    # C4 low-d part: TS below random on b and c only (2 of 3 needed): leaving out b or c breaks it
    over = {**GOOD, ("a", "ts"): 1.0}
    r = _run(
        overrides=over, section={**FAST, "robustness": {**FAST["robustness"], "n_resamples": 0}}
    )
    rel = released_claims(r)
    row = _key(rel.claims)["P1-C4/ts"]
    assert row.decision == REPRODUCED, row.note
    assert row.lopo_changes >= 2 and "b →" in row.lopo and "c →" in row.lopo


# --- TS boundary share --------------------------------------------------------------------


def test_boundary_share_counts_bo_points_only(tmp_path):
    x = np.array([[0.5, 0.5], [0.0, 0.3], [0.2, 1.0], [0.4, 0.6]])
    tr = pd.DataFrame(x, columns=["x_0", "x_1"]).assign(
        is_initial=[True, True, False, False], dim=2
    )
    n, share, coord = boundary_share(tr)
    assert (n, share, coord) == (2, 0.5, 0.25)
    d = tmp_path / "runs" / "p" / "ts"
    d.mkdir(parents=True)
    tr.to_parquet(d / "seed0.parquet")
    t = boundary_table([str(d / "seed0.parquet")], ["ts"], 10, 50)
    assert t.loc[t["subset"] == "all", "boundary_share"].iloc[0] == 0.5
    assert set(t["subset"]) == {"all", "low-d"}


# --- config -------------------------------------------------------------------------------


def test_sensitivity_cells_run_on_every_problem_of_the_replicate_config():
    base = yaml.safe_load(open("config/replicate.yaml"))
    new = ["ucb_b0_1", "ucb_b4", "ucb_b64", "ts_raasp", "ts_sobol"]
    for p in base["problems"]:
        assert not any(is_excluded(base, p, m) for m in new), p
        for m in ("ucb_high", "ucb_low", "pi", "greedy", "logei_tr", "logei_raasp"):
            assert not is_excluded(base, p, m), (p, m)  # taxonomy set + C7 on both sides (C8)
        assert is_excluded(base, p, "mes") == p.startswith("hi_")
        assert is_excluded(base, p, "logei_q4") == p.startswith("hi_")
    assert base["methods"]["ts_sobol"] == "ts(perturb=false)"
    assert set(base["analysis"]["sensitivity"]["ucb_beta"]) >= {
        "ucb_low",
        "ucb",
        "ucb_high",
        *new[:3],
    }
    assert set(base["analysis"]["sensitivity"]["ts_maximiser"]) == {"ts", "ts_polish", "ts_sobol"}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-0.02, 0.02, allow_nan=False), min_size=4, max_size=10),
    st.floats(0, 0.01),
    st.floats(0, 0.01),
)
def test_tie_margin_only_moves_a_unit_towards_for(diffs, m1, m2):
    """A larger C3 margin never turns a unit against the claim (non-inferiority is monotone)."""
    from boexplore.analysis.claimkit.decide import classify_units, paired_units
    from boexplore.analysis.claimkit.verdict import Rule

    d = np.asarray(diffs)
    final = pd.DataFrame(
        {
            "problem": "p",
            "dim": 2,
            "seed": np.tile(np.arange(d.size), 2),
            "method": ["a"] * d.size + ["b"] * d.size,
            "otsd_norm": np.concatenate([d, np.zeros(d.size)]),
        }
    )
    rank = {"against": 0, "none": 1, "for": 2}
    lo, hi = sorted((m1, m2))
    out = [
        classify_units(paired_units(final, "otsd_norm", [("a", "b")], "C3", shift=m), Rule())
        for m in (lo, hi)
    ]
    assert rank[out[0]["outcome"].iloc[0]] <= rank[out[1]["outcome"].iloc[0]]


def test_budget_panel_title_says_whether_the_verdict_still_moved() -> None:
    from boexplore.plotting.budget import _final_phrase

    def claim(decisions: list[str]) -> pd.DataFrame:
        return pd.DataFrame({"prefix": [0.25, 0.5, 0.75, 1.0], "decision": decisions})

    assert _final_phrase(claim(["a", "b", "reproduced", "reproduced"])) == "reproduced (settled)"
    moved = _final_phrase(claim(["a", "b", "undecided", "reproduced"]))
    assert moved == "reproduced (undecided at 75 %)"
    assert _final_phrase(claim(["a", "b", "c", "d"]).iloc[:0]) == ""
