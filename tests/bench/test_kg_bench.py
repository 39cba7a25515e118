"""The qKG benchmark's statistics (shortfall, pooled comparison, cost fit) and one real step."""

import numpy as np
import pandas as pd
import pytest

from boexplore.bench.kg import (
    FANTASY_CACHE,
    RANDOM_POINT,
    _state,
    compare,
    cost_fit,
    kg_step,
    render_markdown,
    shortfalls,
)


def _rows() -> pd.DataFrame:
    rows = []
    for problem, dim in (("a", 2), ("b", 6)):
        for n in (20, 80):
            for seed in range(3):
                v0 = 1.0
                for column, fant, r, raw, gain, cpu in (
                    ("current", 64, 10, 1024, 0.5, 10.0),
                    ("half", 64, 5, 512, 0.5, 5.0),
                    ("cheap", 32, 5, 512, 0.5, 4.0),
                    ("broken", 64, 1, 16, 0.0, 1.0),
                ):
                    cost = cpu * (n / 100) ** 0.7 * (1 + dim / 10) ** 1.5
                    rows.append({"problem": problem, "dim": dim, "n": n, "seed": seed,
                                 "column": column, "fantasies": fant, "num_restarts": r,
                                 "raw_samples": raw, "cpu_s": cost, "kg_ref": v0 + gain,
                                 "v0": v0, "x": "[0.5, 0.5]"})  # fmt: skip
    return pd.DataFrame(rows)


def test_shortfall_is_zero_for_the_best_column_and_one_for_no_gain():
    s = shortfalls(_rows())
    assert s.loc[s.column == "current", "shortfall"].eq(0).all()
    assert s.loc[s.column == "broken", "shortfall"].eq(1).all()
    # a state where no column gains over v0 says nothing and is dropped
    flat = _rows().assign(kg_ref=1.0)
    assert shortfalls(flat).empty


def test_compare_pools_all_states_and_flags_the_control():
    cmp = compare(_rows()).set_index(["problem", "column"])
    assert cmp.loc[("all problems", "cheap"), "states"] == 12
    assert cmp.loc[("all problems", "cheap"), "speedup"] == pytest.approx(2.5)
    assert cmp.loc[("all problems", "cheap"), "d_shortfall"] == pytest.approx(0.0)
    # control: a column that never gains is one full shortfall worse than the current one
    assert cmp.loc[("all problems", "broken"), "d_shortfall"] == pytest.approx(1.0)


def test_cost_fit_recovers_the_power_law():
    fit = cost_fit(_rows())
    assert fit["b"] == pytest.approx(0.7) and fit["c"] == pytest.approx(1.5)
    # cheap (32 fantasies) / half (64, same effort) = 0.8 = f + (1 - f) * 0.5 -> f = 0.6
    assert fit["fantasy_fixed"] == pytest.approx(0.6)
    assert np.isfinite(fit["a"]) and fit["a"] > 0


def test_cost_fit_with_curvature_recovers_growth_faster_than_a_power_of_n():
    rows = []
    for problem, dim in (("a", 2), ("b", 6), ("c", 60)):
        for n in (20, 80, 100, 300, 500):
            ln_n = np.log(n / 100)
            cpu = 30.0 * np.exp(0.6 * ln_n + 0.5 * ln_n**2) * (1 + dim / 10) ** 0.4
            for seed in range(2 if n < 100 else 1):  # cells, not rows, carry the weight
                rows.append({"problem": problem, "dim": dim, "n": n, "seed": seed,
                             "column": "current", "fantasies": 64, "num_restarts": 10,
                             "raw_samples": 1024, "cpu_s": cpu})  # fmt: skip
    fit = cost_fit(pd.DataFrame(rows), curvature=True)
    assert fit["b"] == pytest.approx(0.6) and fit["b2"] == pytest.approx(0.5)
    assert fit["c"] == pytest.approx(0.4)
    assert "b2" not in cost_fit(pd.DataFrame(rows))  # the pilot's plain power law


def test_cost_calibration_holds_the_fit_of_the_committed_qkg_steps():
    """The cost model's qKG terms are the refit of docs/kg-speed.csv + docs/kg-memory.csv
    (``python -m boexplore.bench.kg_memory --calibrate``), not typed."""
    from pathlib import Path

    from boexplore.bench.kg_memory import cpu_calibration, read_rows
    from boexplore.pipeline.cost import load_calibration

    docs = Path(__file__).resolve().parents[2] / "docs"
    fit = cpu_calibration(read_rows(docs / "kg-memory.csv"), docs / "kg-speed.csv")
    bo = load_calibration()["bo"]
    assert bo["acq_scale"]["kg"] == pytest.approx(fit["a"], abs=1e-4)
    shape = bo["acq_shape_by_method"]["kg"]
    for key in ("b", "b2", "c"):
        assert shape[key] == pytest.approx(fit[key], abs=1e-4), key
    assert bo["kg_fantasy_fixed"] == pytest.approx(fit["fantasy_fixed"], abs=1e-3)


def test_one_real_qkg_step():
    model, bounds = _state("branin", 2, 8, 0)
    x, cpu = kg_step(model, bounds, {"fantasies": 4, "num_restarts": 2, "raw_samples": 16}, 0)
    assert x.shape == (1, 2) and bool(((x >= 0) & (x <= 1)).all()) and cpu > 0


def test_gain_ratio_passes_equal_gains_and_fails_the_control():
    from boexplore.bench.kg import GAIN_RATIO_FLOOR, gain_ratios

    rows = _rows()
    rng = np.random.default_rng(0)
    rows.loc[rows["column"] != "broken", "kg_ref"] += rng.normal(
        0, 0.01, (rows["column"] != "broken").sum()
    )
    ratios = gain_ratios(rows, n_boot=200).set_index(["problem", "column"])
    for problem in ("a", "b"):
        assert ratios.loc[(problem, "cheap"), "ratio"] == pytest.approx(1.0, abs=0.05)
        assert ratios.loc[(problem, "cheap"), "low"] >= GAIN_RATIO_FLOOR
        # control: a column that never gains fails the floor
        assert ratios.loc[(problem, "broken"), "high"] < GAIN_RATIO_FLOOR


def test_optimiser_seeds_are_averaged_within_a_state():
    from boexplore.bench.kg import per_state

    rows = pd.concat([_rows().assign(opt_seed=lambda r: r["seed"]),
                      _rows().assign(opt_seed=lambda r: r["seed"] + 1000)], ignore_index=True)  # fmt: skip
    rows.loc[(rows.opt_seed >= 1000) & (rows.column == "cheap"), "kg_ref"] = 1.0  # no gain
    out = per_state(rows).set_index(["problem", "n", "seed", "column"])
    assert (out["opt_seeds"] == 2).all()
    assert out.xs("cheap", level="column")["shortfall"].eq(0.5).all()


def test_a_shard_without_the_current_column_still_renders():
    from boexplore.bench.kg import render_markdown

    rows = _rows()
    page = render_markdown(rows[rows["column"] == "cheap"])
    assert "| a | 2 | cheap |" in page


def test_a_timing_only_run_reports_the_paired_speed_up():
    """``--no-reference`` rows (no KG values): the page gives each column's speed-up over the
    current column on the states both ran, instead of failing on the missing gains."""
    rows = _rows().assign(kg_ref=float("nan"))
    rows = rows[rows.column.isin(["current", "half"])]
    page = render_markdown(rows)
    assert "## Speed-up over 'current' on the same states (timing only)" in page
    assert "| a | 2 | 20 | half | 3 |" in page and "| 2.00× |" in page
    assert "KG shortfall" not in page
    slower = rows.assign(cpu_s=rows.cpu_s.where(rows.column == "current", rows.cpu_s * 4))
    assert "| 0.50× |" in render_markdown(slower)


def test_the_fantasy_cache_column_is_decided_by_the_pre_registered_rule():
    rows = _rows()
    rows = rows[rows.column.isin(["current", "broken"])]
    same = rows[rows.column == "current"].assign(column=FANTASY_CACHE, cpu_s=lambda r: r.cpu_s / 3)
    control = rows[rows.column == "broken"].assign(column=RANDOM_POINT)
    page = render_markdown(pd.concat([rows[rows.column == "current"], same, control]))
    assert f"## Decision on {FANTASY_CACHE!r}" in page
    assert "Verdict: adopt: keeps the KG gain and is faster in every problem." in page
    lost = same.assign(kg_ref=same.v0 + 0.1)
    page = render_markdown(pd.concat([rows[rows.column == "current"], lost, control]))
    assert "Verdict: stays off: loses KG gain" in page


@pytest.mark.parametrize("page", ["kg-fantasy-cache", "kg-fantasy-cache-speed"])
def test_the_fantasy_cache_pages_are_generated_from_their_tables(page):
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs"
    rows = pd.read_csv(docs / f"{page}.csv")
    text = (docs / f"{page}.md").read_text()
    title = text.splitlines()[0].removeprefix("# ")
    assert text == render_markdown(rows, title)
