"""Paper-1 claim parts re-decided per band of d (analysis.paper1.bands)."""

from __future__ import annotations

import pandas as pd
import pytest

from boexplore.analysis.config import analysis_config
from boexplore.analysis.paper1.bands import band_of, band_parts, bands_markdown


def _units(spec: dict[tuple[str, int], tuple[float, float]], n_seeds: int = 5) -> pd.DataFrame:
    """One C4 unit per (problem, dim): (mean_diff, p)."""
    rows = [
        {"part": "C4", "problem": p, "dim": d, "a": "ts", "b": "random", "n_seeds": n_seeds,
         "mean_diff": md, "p": pv, "p_adj": pv, "outcome": "for", "claim_id": "P1-C4",
         "variant": "ts", "metric": "otsd_norm", "subset": "high-d",
         "part_name": "high-d TS>random [otsd_norm]"}
        for (p, d), (md, pv) in spec.items()
    ]  # fmt: skip
    return pd.DataFrame(rows)


CFG = analysis_config({})
BUDGETS = {"a60": 120, "b50": 100, "c100": 200, "d180": 280}


def test_bands_cover_the_tiers_dimensions() -> None:
    assert [band_of(d) for d in (2, 6, 14, 50, 60, 100, 180)] == [
        "2-6", "2-6", "7-49", "50-60", "50-60", "100", "180"
    ]  # fmt: skip


def test_a_part_can_hold_in_one_band_and_fail_in_another() -> None:
    units = _units(
        {("a60", 60): (0.01, 1e-4), ("b50", 50): (0.02, 1e-5), ("c100", 100): (0.01, 1e-3),
         ("d180", 180): (-0.02, 1e-5)}
    )  # fmt: skip
    bands = band_parts(units, CFG, BUDGETS).set_index("band")
    assert bands.loc["50-60", "decision"] == "reproduced"
    assert bands.loc["50-60", "evaluations"] == "100-120"
    assert bands.loc["100", "decision"] == "reproduced"
    # the control: a band whose one problem goes against the claim cannot read reproduced
    assert bands.loc["180", "decision"] == "not reproduced"
    assert bands.loc["180", "k_against"] == 1 and bands.loc["180", "evaluations"] == "280"
    md = bands_markdown(band_parts(units, CFG, BUDGETS), "t")
    assert "| P1-C4 (ts) | high-d TS>random [otsd_norm] |" in md and "d 180" in md


def test_correction_is_within_the_band_and_min_seeds_is_kept() -> None:
    # p = 0.03 per unit: each band corrects over its own units only (here one each)
    units = _units({(p, d): (0.01, 0.03) for p, d in (("a60", 60), ("c100", 100))})
    bands = band_parts(units, CFG, BUDGETS).set_index("band")
    assert (bands["decision"] == "reproduced").all()
    few = band_parts(_units({("c100", 100): (0.01, 1e-4)}, n_seeds=2), CFG, BUDGETS)
    assert few["decision"].tolist() == ["undecided"]
    assert band_parts(_units({}).iloc[:0], CFG, BUDGETS).empty


@pytest.mark.parametrize("tier", ["replicate-beyond-d", "replicate-decide"])
def test_released_units_give_one_row_per_part_and_band(tier: str) -> None:
    from wfhelpers import REPO

    from boexplore.workflow_config import load_config, problem_design

    config = load_config(REPO / "config" / f"{tier}.yaml")
    units = pd.read_csv(REPO / "data" / tier / "tables" / "claims_paper1_units.csv")
    budgets = {p: problem_design(config, p)[1] for p in config["problems"]}
    bands = band_parts(units, analysis_config(config["analysis"]), budgets)
    assert not bands.duplicated(["claim_id", "variant", "part", "band"]).any()
    assert set(bands["decision"]) <= {"reproduced", "not reproduced", "undecided", "missing"}
    assert bands["evaluations"].str.len().gt(0).all()
