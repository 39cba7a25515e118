"""The authors' OE decides OE parts only where it exists, and the GP prior as a setting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from analysis.test_claims import BASE, GOOD, LEVELS, VARIANTS
from synthetic import synthetic_metrics, zero_oe_estimator

from boexplore.analysis.claimkit.verdict import NOT_REPRODUCED, REPRODUCED
from boexplore.analysis.paper1.claims import OE_UNDEFINED, claims_report
from boexplore.analysis.paper1.claims_release import released_claims
from boexplore.analysis.pipeline import run_analysis
from boexplore.metrics.oe_baseline import UniformOEBaseline

# small dimensions so that T points can lie past d: "high d" is d >= 6 here
SPLIT = {"low_d_max": 3, "high_d_min": 6}
PROBLEMS = (("a", 2), ("b", 3), ("c", 3), ("d", 6), ("e", 7), ("f", 8))
AUTHORS = {"exploration_metrics": ["otsd_norm", "oe_ref_rel"]}


#: re-decisions kept small: these tests are about which statistic decides, not robustness
FAST = {
    "robustness": {
        "budget_fractions": [1.0],
        "bo_steps": [2],
        "n_resamples": 5,
        "inner_boot": 5,
        "lopo": False,
    },
    "power": {"n_sim": 50, "seeds_grid": [5], "problems_grid": [6]},
}


def _metrics(T: int, levels=None, **kw) -> pd.DataFrame:
    m = synthetic_metrics(levels=levels or LEVELS, seeds=5, T=T, problems=PROBLEMS, **kw)
    m.loc[m["n"] < m["dim"], "oe_ref"] = np.nan  # the authors' OE starts at d points
    return m


def _analyse(m: pd.DataFrame, section: dict) -> object:
    return run_analysis(
        m,
        {**BASE, **FAST, **SPLIT, **section},
        baseline=UniformOEBaseline(1, estimator=zero_oe_estimator),
    )


def _row(claims: pd.DataFrame, cid: str) -> pd.Series:
    return claims.set_index("claim_id").loc[cid]


def test_authors_oe_decides_past_d_and_says_so_before():
    past = claims_report(_analyse(_metrics(T=10, overrides=GOOD), AUTHORS)).claims
    assert _row(past, "P1-C2")["decision"] == REPRODUCED
    assert "[oe_ref_rel]" in _row(past, "P1-C2")["note"]
    assert "oe_ref_rel" in _row(past, "P1-C1")["statistic"]
    # the same runs cut at 5 points: the high-d problems (d = 6-8) have no authors' OE
    cut = claims_report(_analyse(_metrics(T=5, overrides=GOOD), AUTHORS)).claims
    assert "3 problems left out (n <= d" in _row(cut, "P1-C2")["note"]
    # only high-d problems: the OE part has no verdict, the row says why (control: OTSD decides)
    high = _metrics(T=5, overrides=GOOD)
    high = high[high["dim"] >= 6]
    row = _row(claims_report(_analyse(high, AUTHORS)).claims, "P1-C2")
    assert OE_UNDEFINED in row["note"] and OE_UNDEFINED in row["verdict"]
    assert "explorer>exploiter [otsd_norm]: 12/12 for" in row["note"]
    ours = _row(claims_report(_analyse(high, {})).claims, "P1-C2")
    assert OE_UNDEFINED not in ours["note"]  # our OE exists from the second point on


def test_authors_oe_differences_within_a_problem_are_the_raw_ones():
    r = _analyse(_metrics(T=10), AUTHORS)
    f = r.final
    for _, g in f.groupby(["problem", "seed"]):
        raw = g["oe_ref"].to_numpy() - g["oe_ref"].to_numpy()[0]
        centred = g["oe_ref_rel"].to_numpy() - g["oe_ref_rel"].to_numpy()[0]
        np.testing.assert_allclose(centred, raw, atol=1e-12)


def test_oe_statistic_rows_say_where_the_two_oe_disagree():
    # ours says the explorers spread more, the authors' OE the opposite on every problem
    m = _metrics(T=10, overrides=GOOD)
    flip = m["method"].isin(["random", "ucb_high"])
    m.loc[flip, "oe_ref"] = m.loc[flip, "oe_ref"] - 10.0
    section = {
        **AUTHORS,
        "sensitivity": {"oe_statistic": {"oe_ref_rel": "authors' OE", "oe_rel": "ours"}},
    }
    rel = released_claims(_analyse(m, section))
    s = rel.sensitivity[rel.sensitivity["dimension"] == "oe_statistic"]
    c2 = s[s["claim_id"] == "P1-C2"].set_index("setting")
    assert c2.loc["authors' OE", "decision"] == NOT_REPRODUCED
    assert c2.loc["ours", "decision"] == REPRODUCED
    assert bool(c2.loc["authors' OE", "is_default"]) and not bool(c2.loc["ours", "is_default"])
    text = _row(rel.claims, "P1-C2")["settings_range"]
    assert "reproduced for OE statistic: ours" in text
    assert "not reproduced for OE statistic: authors' OE" in text


@pytest.fixture(scope="module")
def priors():
    """EI vs UCB reverses under the second prior; TS over-explores in high d under both."""
    levels = {**LEVELS, "ts_polish": 1.0}
    levels.update(
        {f"{k}_gamma": v for k, v in levels.items() if k in ("ts", "ts_polish", "logei", "ucb")}
    )
    good = {**GOOD, **{(p, "ts_polish"): v for (p, m), v in GOOD.items() if m == "ts"}}
    flipped = {(p, f"{m}_gamma"): v for (p, m), v in good.items()}
    for p in ("a", "b", "c"):  # low d: UCB above EI under the second prior
        flipped[(p, "ucb_gamma")] = 0.65
    for p in ("d", "e", "f"):
        flipped[(p, "ucb_gamma")] = 0.45
    m = _metrics(T=10, levels=levels, overrides={**good, **flipped}, variants=VARIANTS)
    m = m[(m["problem"] != "a") | ~m["method"].str.endswith("_gamma")]  # one problem without it
    base = {"ts": "ts", "ts_polish": "ts_polish", "logei": "logei", "ucb": "ucb"}
    section = {
        "sensitivity": {
            "gp_prior": {"new": base, "old": {k: f"{k}_gamma" for k in base}},
        }
    }
    r = _analyse(m, section)
    return r, released_claims(r)


def test_gp_prior_rows_redecide_c4_c5_c8_on_common_problems(priors):
    r, priors = priors
    # the default claims see only the default prior's runs; the other prior is a setting
    assert not r.final["method"].str.endswith("_gamma").any()
    assert not r.cells["method"].str.endswith("_gamma").any()
    assert r.final_all["method"].str.endswith("_gamma").any()
    s = priors.sensitivity[priors.sensitivity["dimension"] == "gp_prior"]
    assert set(s["claim_id"]) == {"P1-C4", "P1-C5", "P1-C8"}
    assert set(s["n_problems"]) == {5}  # problem "a" lacks the second prior's runs
    c5 = s[s["claim_id"] == "P1-C5"].set_index("setting")
    assert c5.loc["new", "decision"] == REPRODUCED and bool(c5.loc["new", "is_default"])
    assert c5.loc["old", "decision"] == NOT_REPRODUCED
    c4 = s[s["claim_id"] == "P1-C4"].set_index("setting")
    maximisers = ("candidates + perturbations", "polished")
    assert set(c4.index) == {f"{p}, {t}" for p in ("new", "old") for t in maximisers}
    assert (c4["decision"] == REPRODUCED).all()
    text = _row(priors.claims, "P1-C5")["settings_range"]
    assert "reproduced for GP prior: new" in text and "not reproduced for GP prior: old" in text


def test_c4_gp_prior_text_is_grouped_by_ts_maximiser(priors):
    _, priors = priors
    text = _row(priors.claims, "P1-C4")["settings_range"].iloc[0]  # one row per TS variant
    assert "GP prior, polished: reproduced under every tested prior" in text
    assert "GP prior, candidates + perturbations: reproduced under every tested prior" in text
    assert text.count("(2 priors tested)") == 1


def test_c4_gp_prior_text_names_each_prior_when_they_differ():
    from boexplore.analysis.paper1.sensitivity import prior_by_maximiser_text

    rows = pd.DataFrame(
        {
            "setting": ["new, cands", "new, polished", "old, cands", "old, polished"],
            "decision": [NOT_REPRODUCED, REPRODUCED, NOT_REPRODUCED, NOT_REPRODUCED],
        }
    )
    assert prior_by_maximiser_text(rows) == (
        "GP prior, cands: not reproduced under every tested prior; "
        "GP prior, polished: reproduced under new, not reproduced under old (2 priors tested)"
    )


def test_boundary_shares_of_priors_compare_on_the_same_problems(tmp_path):
    from boexplore.analysis.boundary import boundary_table, share_on

    def trace(on_boundary: int, n: int = 4) -> pd.DataFrame:
        x = np.full((n, 2), 0.5)
        x[:on_boundary, 0] = 1.0
        return pd.DataFrame(x, columns=["x_0", "x_1"]).assign(is_initial=False, dim=2)

    paths = []
    for problem, method, k in (("p", "ts", 4), ("q", "ts", 0), ("p", "ts_gamma", 2)):
        d = tmp_path / "runs" / problem / method
        d.mkdir(parents=True, exist_ok=True)
        trace(k).to_parquet(d / "seed0.parquet")
        paths.append(str(d / "seed0.parquet"))
    t = boundary_table(paths, ["ts", "ts_gamma"], 10, 50, per_problem=True)
    assert share_on(t, "ts") == (0.5, 0.25)  # pooled over p and q
    assert share_on(t, "ts", ["p"]) == (1.0, 0.5)  # on the problem both ran
    assert share_on(t, "ts_gamma", ["p"]) == (0.5, 0.25)
    assert np.isnan(share_on(t, "ts_gamma", ["q"])[0])
    assert set(boundary_table(paths, ["ts"], 10, 50)["subset"]) == {"all", "low-d"}
