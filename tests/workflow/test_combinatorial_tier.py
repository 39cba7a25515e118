"""The tier beyond the box: its stages on small runs, its DAG, and an end-to-end smoke run."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import yaml
from wfhelpers import REPO, run_snakemake

from boexplore.pipeline import combinatorial_stage as stage
from boexplore.problems import get_problem, load_instance
from boexplore.workflow_config import ConfigError, validate_config

TIER = REPO / "config" / "combinatorial.yaml"


def _tier() -> dict:
    return yaml.safe_load(TIER.read_text())


def test_tier_config_is_valid_and_off_by_default():
    cfg = validate_config(_tier())
    assert cfg["combinatorial"]["enabled"]
    assert len(stage.jobs(cfg)) == 5 * 9 * cfg["combinatorial"]["seeds"]
    smoke = validate_config(yaml.safe_load((REPO / "config" / "smoke.yaml").read_text()))
    assert stage.jobs(smoke) == []


@pytest.mark.parametrize(
    "patch,needle",
    [
        ({"problems": {"b": {"name": "branin"}}}, "is a synthetic problem"),
        ({"problems": {"x": {"name": "nope"}}}, "unknown problem"),
        ({"methods": {"m": "kg"}}, "discrete method"),
        ({"n_init": 200, "budget": 100}, "more than the budget"),
    ],
)
def test_bad_sections_are_named(patch, needle):
    cfg = _tier()
    cfg["combinatorial"].update(patch)
    with pytest.raises(ConfigError, match=needle):
        validate_config(cfg)


def test_stages_on_small_runs(tmp_path):
    """problem -> runs -> scores -> tables, in-process, on one binary and one categorical problem."""
    cfg = copy.deepcopy(validate_config(_tier())["combinatorial"])
    cfg.update(budget=25, n_init=5)
    problems = {"labs12": {"name": "labs", "dim": 12}, "pest6": {"name": "pest_control", "dim": 6}}
    metric_files = []
    for label, entry in problems.items():
        pj = tmp_path / f"{label}.json"
        stage.generate(entry, pj)
        assert load_instance(pj).dim == entry["dim"]
        for method in ("random", "sa"):
            for seed in (0, 1):
                run, met = (
                    tmp_path / f"{label}_{method}_{seed}.parquet",
                    tmp_path / f"m_{label}_{method}_{seed}.parquet",
                )
                stage.run(pj, label, method, method, seed, cfg, run)
                stage.score(run, pj, 4, met)
                metric_files.append(met)
    out = [tmp_path / n for n in ("runs.csv", "summary.csv", "bounds.csv")]
    stage.tables(metric_files, problems, *out)
    runs = pd.read_csv(out[0])
    assert len(runs) == 8 and (runs["n"] == 25).all()
    assert list(runs.columns) == list(stage.RUN_COLUMNS)
    assert (runs["bounds_inside_frac"] == 1.0).all()
    assert np.isfinite(runs[["otsd_rel", "oe_rel"]].to_numpy()).all()
    assert set(runs["domain"]) == {"binary*12", "categorical(5)*6"}
    labs = runs[runs.problem == "labs12"]
    assert (labs["regret"] >= 0).all()  # nothing above the proven optimum
    summary = pd.read_csv(out[1])
    assert len(summary) == 4 and (summary["n_seeds"] == 2).all()
    assert (pd.read_csv(out[2])["bounds_inside_all"] == 1.0).all()
    # the runs are random search and annealing on the problems: values match a re-evaluation
    trace = pd.read_parquet(tmp_path / "pest6_sa_1.parquet")
    X = trace.filter(regex=r"^x_\d+$").to_numpy()
    np.testing.assert_allclose(get_problem("pest_control", dim=6).evaluate_raw(X), trace.y)


def test_tier_dag_builds(tmp_path):
    proc = run_snakemake(
        ["-n", "--quiet", "rules", "--cores", "2", "--configfile", str(TIER)],
        cwd=tmp_path,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    out = proc.stdout + proc.stderr
    for rule in ("comb_problem", "comb_run", "comb_score", "comb_tables"):
        assert rule in out
    assert not (tmp_path / "results").exists()


@pytest.mark.smoke
def test_tier_end_to_end_smoke(tmp_path):
    """One binary and one categorical problem, random search and LogEI, 2 seeds, 20 evaluations."""
    cfg = _tier()
    cfg["run_name"] = "comb-smoke"
    cfg["combinatorial"].update(
        seeds=2, budget=20, n_init=8, num_restarts=2, raw_samples=64, reference_reps=4,
        problems={"labs12": {"name": "labs", "dim": 12}, "pest6": {"name": "pest_control", "dim": 6}},
        methods={"random": "random", "logei": "logei"},
    )  # fmt: skip
    path = tmp_path / "comb-smoke.yaml"
    path.write_text(yaml.safe_dump(cfg))
    target = "results/comb-smoke/combinatorial/tables/summary.csv"
    proc = run_snakemake(
        [target, "--cores", "2", "--configfile", str(path)], cwd=tmp_path, timeout=900
    )
    assert proc.returncode == 0, proc.stderr[-6000:]
    runs = pd.read_csv(tmp_path / "results/comb-smoke/combinatorial/tables/runs.csv")
    assert len(runs) == 8 and (runs["n"] == 20).all()
    assert (runs["bounds_inside_frac"] == 1.0).all()
    assert np.isfinite(runs["otsd_rel"]).all()
    summary = pd.read_csv(tmp_path / target)
    assert set(summary["method"]) == {"random", "logei"} and (summary["n_seeds"] == 2).all()
