"""Claims verdicts on synthetic tables, summaries, config resolution, grid cells, CLI, probe, E4."""

import numpy as np
import pandas as pd
import pytest

from boexplore.analysis.paper2.claims import COLUMNS, claims_table, to_markdown
from boexplore.analysis.paper2.summary import e1_per_seed
from boexplore.parametric.cli import _parse_overrides
from boexplore.parametric.continuous import run_continuous
from boexplore.parametric.policies import make_policy
from boexplore.parametric.probe import static_probe
from boexplore.pipeline.paper2_experiments import policy_for
from boexplore.pipeline.paper2_grid import e2_cells, e3_cells, resolve_config, seed_chunks
from boexplore.problems import get_problem
from boexplore.problems.finite import NNRealizableProblem


def _synthetic_traces(T=60):
    rows = []
    t = np.arange(1, T + 1)
    for method, b, at_opt in (
        ("rr_ts", 0.5, True),
        ("gp_ts", 0.5, True),
        ("random", 1.0, False),
        ("nn_greedy", 1.0, False),
    ):
        for seed in range(6):
            R = (1 + 0.05 * seed) * t**b
            inst = np.diff(np.concatenate([[0.0], R]))
            rows.append(
                pd.DataFrame(
                    {
                        "problem_key": "nn1d",
                        "problem": "nn_realizable",
                        "method": method,
                        "seed": seed,
                        "eval_index": t - 1,
                        "cum_regret": R,
                        "inst_regret": inst,
                        "regret": 0.1,
                        "at_optimum": at_opt,
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def test_e1_per_seed_and_claims_verdicts():
    per = e1_per_seed(_synthetic_traces(), slope_from=0.5, late_window=10)
    assert per["incumbent_frac"].isna().all()  # synthetic traces carry no indices
    assert per.loc[per.method == "rr_ts", "slope"].to_numpy() == pytest.approx(0.5, abs=1e-9)
    claims = claims_table(
        {"n_boot": 200, "ablations": ["nn_greedy"]}, per, ["nn1d"], None, None, 0.1, None, None
    )
    assert list(claims.columns) == COLUMNS
    by = {row.statistic: row.verdict for row in claims.itertuples()}
    assert by["median log-log slope of R_t over 2nd half (nn1d, rr_ts)"] == "reproduced"
    assert by["paired difference 2·R_T(gp_ts) − R_T(rr_ts) (nn1d)"] == "reproduced"
    assert by["paired difference 0.5·R_T(random) − R_T(rr_ts) (nn1d)"] == "reproduced"
    # synthetic traces carry no point indices: the default (locked) stuck rule has no input
    assert not (claims.claim_id == "P2-C3").any()
    late = claims_table(
        {"n_boot": 200, "ablations": ["nn_greedy"], "stuck_rule": "late_play"},
        per, ["nn1d"], None, None, 0.1, None, None,
    )  # fmt: skip
    stuck = [r for r in late.itertuples() if r.claim_id == "P2-C3"][0]
    # random search is stuck in every seed under the late-play rule: the rule fails its control
    assert stuck.value == 1.0 and stuck.verdict.startswith("undecidable: the stuck rule fails")
    # linear regret for the policy -> P2-C1 not reproduced
    per2 = per.copy()
    per2.loc[per2.method == "rr_ts", "slope"] = 1.0
    c2 = claims_table({"n_boot": 200}, per2, ["nn1d"], None, None, 0.1, None, None)
    assert c2.iloc[0]["verdict"] == "not reproduced"
    assert "| claim_id |" in to_markdown(c2)


def test_coverage_claim_uses_certified_rounds():
    # seed 0: its only violation is in an uncertified round; seed 1 violates in a certified round
    bounds = pd.DataFrame(
        {
            "reg": "func",
            "cell": "c",
            "seed": [0, 0, 1, 1],
            "certified": [True, False, True, True],
            "coverage": [1.0, 0.5, 1.0, 0.9],
            "ratio_max": [0.5, 2.0, 0.4, 1.2],
            "empirical_beta": 1.0,
        }
    )
    empty = pd.DataFrame(columns=["problem_key", "method"])
    row = claims_table({"n_boot": 200}, empty, [], None, bounds, 0.1, None, None).iloc[0]
    assert row["claim_id"] == "P2-C4" and row["value"] == 0.5 and row["verdict"] == "inconclusive"
    many = pd.concat(
        [bounds.assign(seed=bounds.seed + 2 * k) for k in range(10)], ignore_index=True
    )
    many.loc[many.seed % 2 == 0, "coverage"] = 0.8  # now every run has a certified violation
    row = claims_table({"n_boot": 200}, empty, [], None, many, 0.1, None, None).iloc[0]
    assert row["value"] == 0.0 and row["verdict"] == "not reproduced"


def _bounds_with_controls(control_coverage: float) -> pd.DataFrame:
    """20 runs, all covered by the trained fit; the controls' coverage is given."""
    return pd.DataFrame(
        {
            "reg": "func",
            "cell": "c",
            "seed": np.arange(20),
            "certified": True,
            "coverage": 1.0,
            "ratio_max": 0.5,
            "n_points": 10,
            "n_informative": 6,
            "covered_informative_trained": 6,
            "coverage_zero": control_coverage,
            "covered_informative_zero": 6 * control_coverage,
            "coverage_untrained": control_coverage,
            "covered_informative_untrained": 6 * control_coverage,
        }
    )


def test_coverage_claim_needs_failing_controls_and_an_informative_band():
    empty = pd.DataFrame(columns=["problem_key", "method"])
    th = {"n_boot": 200}
    good = claims_table(th, empty, [], None, _bounds_with_controls(0.5), 0.1, None, None)
    assert good.iloc[0]["verdict"] == "reproduced"
    # control: the controls are covered too -> the check cannot fail -> inconclusive
    vacuous = claims_table(th, empty, [], None, _bounds_with_controls(1.0), 0.1, None, None)
    assert vacuous.iloc[0]["verdict"] == "inconclusive"
    # no informative pairs: the cell is dropped, nothing is left to judge
    wide = _bounds_with_controls(0.5).assign(n_informative=0)
    row = claims_table(th, empty, [], None, wide, 0.1, None, None).iloc[0]
    assert row["verdict"] == "inconclusive" and row["n"] == 0


def test_lambda_regret_row_uses_paired_seeds():
    from boexplore.analysis.paper2.claims import DEFAULTS, lambda_regret_row

    rng = np.random.default_rng(0)
    base = rng.uniform(5, 10, 12)
    per = pd.DataFrame(
        {
            "lam": np.repeat([0.01, 1.0], 12),
            "seed": np.tile(np.arange(12), 2),
            "R_T": np.concatenate([base, 2 * base]),
        }
    )
    th = {**DEFAULTS, "n_boot": 200}
    row = lambda_regret_row(per, th)
    assert row["value"] == pytest.approx(base.mean()) and row["verdict"] == "reproduced"
    assert "control lambda=0.01 on seed halves" in row["note"] and "ratio 2 " in row["note"]
    flat = per.assign(R_T=np.concatenate([base, base[::-1]]))
    assert lambda_regret_row(flat, th)["verdict"] != "reproduced"


def test_resolve_config_defaults_and_errors():
    cfg = resolve_config({})
    assert cfg["enabled"] and cfg["e1"]["seeds"] >= 1 and "nn1d" in cfg["problems"]
    assert resolve_config({"e1": {"seeds": 2}})["e1"]["rounds"] == cfg["e1"]["rounds"]
    with pytest.raises(ValueError, match="parametric.e1.seeds"):
        resolve_config({"e1": {"seeds": 0}})
    with pytest.raises(ValueError, match="parametric"):
        resolve_config({"e1": {"methods": ["nope"]}})


def test_grid_cells_and_chunks():
    cfg = resolve_config({})
    cells = e2_cells(cfg)
    e2, dyn = cfg["e2"], cfg["e3"]["dynamic"]
    n_cells = len(e2["regularisers"]) * len(e2["widths"]) * len(e2["init_scales"]) * len(e2["lams"])
    assert len(cells) == n_cells
    assert len({c["label"] for c in cells}) == len(cells)
    assert len(e3_cells(cfg)) == len(dyn["lams"]) * len(dyn["init_scales"])
    assert seed_chunks(7, 3) == [[0, 1, 2], [3, 4, 5], [6]]


def test_policy_precedence():
    cfg = resolve_config({"policy_defaults": {"width": 64, "lam": 2.0}})
    assert policy_for(cfg, "rr_ts").lam == 2.0
    assert policy_for(cfg, "nn_greedy").lam == 0.0  # preset beats defaults
    assert policy_for(cfg, "lfbo_ei").width == 32
    assert policy_for(cfg, "rr_ts", lam=5.0).lam == 5.0  # cell beats preset
    with pytest.raises(ValueError, match="unknown policy settings"):
        policy_for({"noise_std": 0.1, "policy_defaults": {"bogus": 1}}, "rr_ts")


def test_cli_overrides():
    assert _parse_overrides(["lam=10", "reg=anchor", "redraw=false"]) == {
        "lam": 10,
        "reg": "anchor",
        "redraw": False,
    }
    with pytest.raises(ValueError):
        _parse_overrides(["lam"])


def test_static_probe_outputs():
    p = NNRealizableProblem(1, n_points=24, teacher_width=8)
    res = static_probe(p, make_policy("rr_ts", width=8, steps=10), n_data=5, n_draws=6)
    assert 0 <= res["p_argmax_opt"] <= 1 and 0 <= res["optimism_prob"] <= 1
    assert 0 <= res["argmax_entropy"] <= np.log(6) + 1e-12


def test_continuous_runs_on_branin():
    p = get_problem("branin")
    tr = run_continuous(
        p, make_policy("rr_lfbo_ei", width=8, steps=5), [0, 1], budget=5, n_init=3, n_candidates=16
    )
    assert len(tr) == 10 and (tr["regret"] >= -1e-9).all()
    assert tr.groupby("seed")["best_so_far"].apply(lambda s: s.is_monotonic_increasing).all()


def test_job_files_counts_and_disable():
    from boexplore.pipeline.paper2_grid import job_files

    cfg = resolve_config(
        {"seed_chunk": 4, "e1": {"seeds": 6, "problems": ["nn1d"], "methods": ["rr_ts", "random"]}}
    )
    files = job_files(cfg, "results/x", "figures/x")
    assert len(files["e1"]) == 2 * 2  # two methods x two seed chunks
    assert "results/x/tables/claims_paper2.csv" in files["final"]
    assert "figures/x/paper2_regret.png" in files["final"]
    assert all(
        v == []
        for v in job_files(resolve_config({"enabled": False}), "results/x", "figures/x").values()
    )
    no_e4 = job_files(resolve_config({"e4": {"enabled": False}}), "results/x", "figures/x")
    assert no_e4["e4"] == [] and "figures/x/paper2_lfbo_sanity.png" not in no_e4["final"]


def test_no_python_copy_of_schema_defaults():
    """Claim thresholds and experiment settings fall back to the schema, nothing else."""
    from boexplore.analysis.paper2.claims import DEFAULTS
    from boexplore.schema import load_schema

    claims = load_schema("parametric")["properties"]["claims"]["properties"]
    assert DEFAULTS == {k: v["default"] for k, v in claims.items() if "default" in v}
    # a partial e3.static section gets the schema's per-key defaults
    static = resolve_config({"e3": {"static": {"lams": [1.0]}}})["e3"]["static"]
    assert static == {
        "lams": [1.0],
        "init_scales": [0.5, 1.0, 2.0],
        "n_data": 20,
        "n_draws": 32,
        "seed": 0,
    }
