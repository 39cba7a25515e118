"""Paper 2's rows in paper 1's robustness columns: one problem left out, and the settings
(λ, width, training steps) the paper's summary does not fix, on synthetic per-seed tables."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_paired_claims import FREE, NOISE, N, _methods, _per_seed  # noqa: E402

from boexplore.analysis.paper2 import views  # noqa: E402
from boexplore.analysis.paper2.claims import DEFAULTS, claims_table  # noqa: E402

TH = {**DEFAULTS, "n_boot": 200}


def _decide(seeds: pd.DataFrame):
    return lambda keys: claims_table(TH, seeds, list(keys), None, None, 0.1, None, None)


def test_leaving_out_the_problem_that_validates_the_stuck_rule_moves_the_other_rows() -> None:
    """The greedy control is stuck only on p2: without p2 the stuck rule fails its control, so
    p1's reproduced ablation row becomes undecidable; the regret rows do not move."""
    seeds = _per_seed({"p1": _methods(gp_greedy=(20 * NOISE, FREE)), "p2": _methods()}, N)
    full = _decide(seeds)(["p1", "p2"])
    out = views.with_views(full, views.leave_one_problem_out(full, ["p1", "p2"], _decide(seeds)))
    assert list(out["claim_id"]) == list(full["claim_id"])  # every row, same order
    c3 = out[out["claim_id"] == "P2-C3"]
    c3 = c3.set_index(c3["statistic"].str.extract(r"\((p\d)")[0])
    assert c3.loc["p1", "verdict"] == "reproduced"
    assert c3.loc["p1", "lopo"] == "changes without p2 → undecidable"
    assert c3.loc["p1", "lopo_changes"] == 1 and c3.loc["p1", "lopo_n"] == 1
    assert c3.loc["p2", "lopo"] == "same without the other problem"  # p2 validates it alone
    others = out[out["claim_id"] != "P2-C3"]
    assert (others["lopo_changes"] == 0).all() and others["lopo"].str.startswith("same").all()


def test_a_control_that_moves_nothing_reads_same_and_one_experiment_rows_say_why() -> None:
    full = pd.DataFrame({"claim_id": ["P2-C2", "P2-C5"], "verdict": ["reproduced", "inconclusive"],
                         "statistic": ["d (a)", "Spearman(log lambda, x), dynamic runs"]})  # fmt: skip
    calls = []

    def decide(keys):
        calls.append(list(keys))
        return full.assign(verdict=["reproduced", "undecidable at this scale: needs 9 runs"])

    lopo = views.leave_one_problem_out(full, ["a", "b", "c"], decide).set_index("claim_id")
    assert calls == [["b", "c"], ["a", "c"], ["a", "b"]]
    assert lopo.loc["P2-C2", "lopo"] == "same without any one of the 2 other problems"
    assert lopo.loc["P2-C5", "lopo"] == views.NO_PROBLEM  # a scale named again is no move
    assert lopo.loc["P2-C5", "lopo_n"] == 0


@pytest.mark.parametrize(
    "verdict, word",
    [("reproduced", "reproduced"), ("not reproduced", "not reproduced"),
     ("undecidable at this scale: needs 50 seeds", "undecidable"), ("inconclusive", "undecidable"),
     ("undecidable: the stuck rule fails its control (x)", "undecidable"),
     ("missing data", "missing data")],
)  # fmt: skip
def test_verdict_class(verdict: str, word: str) -> None:
    assert views.verdict_class(verdict) == word


def test_sensitivity_names_the_settings_a_row_holds_for() -> None:
    """λ = 1 makes RR-TS's regret as large as random search's: P2-C2's random row holds for
    λ = 0.01 and 0.1 only; the width does not move it."""
    base_seeds = _per_seed({"p1": _methods()}, N)
    worse = _per_seed({"p1": _methods(rr_ts=(80 * NOISE[::-1], FREE))}, N)
    decide = lambda seeds: _decide(seeds)(["p1"])  # noqa: E731
    base = decide(base_seeds)
    sens = views.sensitivity_table(
        base, {"lam": "0.01", "width": "64"},
        {("lam", "1"): worse, ("lam", "0.1"): base_seeds, ("width", "128"): base_seeds,
         ("width", "32"): base_seeds}, decide,
    )  # fmt: skip
    assert len(sens) == len(base) * 6 and sens["is_default"].sum() == 2 * len(base)
    cols = views.settings_columns(sens).set_index("statistic")
    random_row = next(s for s in cols.index if "R_T(random)" in s)
    assert cols.loc[random_row, "default_setting"] == "λ = 0.01; width = 64"
    text = cols.loc[random_row, "settings_range"]
    assert text.startswith("reproduced for λ = 0.01, 0.1; not reproduced for λ = 1 (3 tested)")
    assert text.endswith("; reproduced for every tested width (3 tested)")
    merged = views.with_views(base, cols.reset_index())
    assert merged["settings_range"].notna().all() and len(merged) == len(base)


def test_a_row_missing_in_a_variant_reads_missing_data() -> None:
    base = pd.DataFrame({"claim_id": ["P2-C1"], "statistic": ["s (a)"], "verdict": ["reproduced"]})
    sens = views.sensitivity_table(base, {"steps": "1000"}, {("steps", "300"): pd.DataFrame()},
                                   lambda _: base.iloc[:0])  # fmt: skip
    assert sens.set_index("setting").loc["300", "verdict"] == "missing data"
    text = views.settings_columns(sens)["settings_range"].iloc[0]
    assert (
        text
        == "missing data for training steps = 300; reproduced for training steps = 1000 (2 tested)"
    )


def test_the_workflows_claims_table_carries_the_lopo_columns(tmp_path: Path) -> None:
    """``build_tables`` (the workflow's entry) adds paper 1's lopo columns to every row."""
    from boexplore.analysis.paper2.tables import build_tables

    rng = np.random.default_rng(1)
    rows = []
    for pk in ("a", "b"):
        for m in ("rr_ts", "gp_ts", "random", "gp_greedy", "nn_warm", "nn_greedy"):
            for seed in range(6):
                inst = rng.uniform(0, 1, 20) / (1 + np.arange(20)) ** (m != "random")
                rows += [dict(problem_key=pk, problem="nn_realizable", method=m, seed=seed,
                              eval_index=t, cum_regret=inst[: t + 1].sum(), regret=inst[t],
                              at_optimum=inst[t] < 0.05) for t in range(20)]  # fmt: skip
    traces = tmp_path / "e1.parquet"
    pd.DataFrame(rows).to_parquet(traces)
    names = ["e1_seeds", "e1_summary", "e2_summary", "e3_static", "e3_dynamic", "e4_summary",
             "claims"]  # fmt: skip
    outputs = {n: str(tmp_path / f"{n}.csv") for n in names}
    outputs |= {n: str(tmp_path / f"{n}.parquet") for n in ("e1_curves", "e2_bounds", "e4_traces")}
    outputs |= {"e2_md": str(tmp_path / "e2.md"), "claims_md": str(tmp_path / "claims.md")}
    cfg = {"claims": {**TH, "stuck_rule": "late_play"}, "problems": {},
           "e1": {"problems": ["a", "b"], "slope_from": 0.5, "late_window": 5},
           "e2": {"delta": 0.1}}  # fmt: skip
    claims = build_tables(cfg, {"e1": [str(traces)]}, outputs)
    assert len(claims) and claims["lopo"].notna().all()
    assert claims["lopo_n"].eq(1).all()
    assert list(pd.read_csv(outputs["claims"]).columns[-3:]) == views.LOPO_COLUMNS
