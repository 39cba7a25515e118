"""P1-C7's "mechanism acted" filter as a setting (issue 58): the verdict with and without it,
and the per-problem table of the seeds in which each mechanism acted."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from synthetic import DEFAULT_LEVELS, synthetic_metrics, zero_oe_estimator

from boexplore.analysis.claimkit.verdict import NOT_REPRODUCED, REPRODUCED
from boexplore.analysis.paper1.sensitivity import c7_activity_filter, settings_columns
from boexplore.analysis.pipeline import run_analysis
from boexplore.analysis.variants import activity_table, mechanism_activity
from boexplore.metrics.oe_baseline import UniformOEBaseline

PROBLEMS = (("a", 2), ("b", 3), ("c", 5), ("d", 60), ("e", 80), ("f", 100))
LOW, HIGH = ("a", "b", "c"), ("d", "e", "f")
VARIANTS = {"logei_tr": ("logei", 1, True, False, -0.2)}
BASE = {"n_boot": 50, "c8_n_boot": 400, "power": {"n_sim": 60}, "oe_baseline": {"n_rep": 1}}


def _result(tr_acted_in: tuple[str, ...]):
    """The trust region reduces exploration in low d and raises it in high d, where (like
    TuRBO's at 30-60 evaluations) it acted in no seed unless ``tr_acted_in`` says so."""
    high = DEFAULT_LEVELS["logei"] + 0.2
    over = {(p, "logei_tr"): high for p in HIGH}
    m = synthetic_metrics(seeds=6, variants=VARIANTS, problems=PROBLEMS, overrides=over, T=8)
    keys = m[["problem", "method", "seed"]].drop_duplicates()
    acted = keys.assign(tr_acted=keys["problem"].isin(tr_acted_in).astype(float), raasp_acted=1.0)
    return run_analysis(
        m, BASE, baseline=UniformOEBaseline(1, estimator=zero_oe_estimator), activity=acted
    )


def _tr_rows(rows):
    return {r["setting"]: r for r in rows if r["setting"].startswith("trust_region")}


def test_the_trust_region_part_rests_on_the_filter_and_the_settings_range_says_so():
    r = _result(tr_acted_in=LOW)
    rows = c7_activity_filter(r)
    tr = _tr_rows(rows)
    assert set(tr) == {"trust_region with the activity filter", "trust_region without it"}
    assert tr["trust_region with the activity filter"]["decision"] == REPRODUCED  # 3 low-d units
    assert tr["trust_region with the activity filter"]["is_default"]
    assert tr["trust_region without it"]["decision"] == NOT_REPRODUCED  # high d: the other way
    assert not tr["trust_region without it"]["is_default"]
    text = settings_columns(pd.DataFrame(rows)).set_index("claim_id").loc["P1-C7"]
    assert "reproduced for trust_region with the activity filter" in text["settings_range"]
    assert "not reproduced for trust_region without it" in text["settings_range"]


def test_control_where_the_mechanism_acts_everywhere_the_filter_changes_nothing():
    tr = _tr_rows(c7_activity_filter(_result(tr_acted_in=LOW + HIGH)))
    decisions = {row["decision"] for row in tr.values()}
    assert decisions == {NOT_REPRODUCED}  # every unit kept either way: the same verdict


def test_the_filter_is_a_setting_of_the_replicate_configs():
    from boexplore.workflow_config import load_config

    cfg = load_config(Path(__file__).resolve().parents[2] / "config" / "replicate-decide.yaml")
    assert cfg["analysis"]["sensitivity"]["c7_activity_filter"] == {
        "with the activity filter": 0.5,
        "without it": None,
    }


@pytest.mark.parametrize("min_frac", [0.5, 0.8])
def test_activity_table_counts_the_seeds_each_mechanism_acted_in(min_frac):
    lengths = {0: [0.8, 0.4, 0.4], 1: [0.8, 0.8, 0.8], 2: [0.8, 1.6, 0.8], 3: [0.8, 0.8, 0.8]}
    tr = pd.DataFrame(
        [
            {
                "problem": "p",
                "method": "logei_tr",
                "seed": s,
                "dim": 60,
                "tr_length": v,
                "raasp_n_perturbed": np.nan,
            }
            for s, vals in lengths.items()
            for v in vals
        ]  # fmt: skip
    )
    plain = tr.assign(method="logei", tr_length=np.nan)  # no trust region: no row
    raasp = tr.assign(method="logei_raasp", tr_length=np.nan, raasp_n_perturbed=60.0)
    act = mechanism_activity(pd.concat([tr, plain, raasp], ignore_index=True))
    table = activity_table(act, {"p": 60}, min_frac)
    got = table.set_index(["mechanism", "method"])
    assert list(got.index) == [("raasp", "logei_raasp"), ("trust_region", "logei_tr")]
    row = got.loc[("trust_region", "logei_tr")]
    assert (row["n_seeds"], row["n_acted"], row["frac_acted"], row["dim"]) == (4, 2, 0.5, 60)
    assert bool(row["kept_by_filter"]) is (min_frac <= 0.5)
    assert got.loc[("raasp", "logei_raasp"), "n_acted"] == 0  # all d coordinates: a no-op
    assert activity_table(None, {}, 0.5).empty
