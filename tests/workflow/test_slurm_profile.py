"""Profiles apply as written: `--profile profiles/slurm` is not shadowed by a workflow profile,
and the dry-run jobs carry the cost model's SLURM requests (capped at the partition limit)."""

from __future__ import annotations

import re
import shutil

import pytest
import yaml
from wfhelpers import REPO, run_snakemake

from boexplore.pipeline import cost
from boexplore.workflow_config import load_config, run_table


def _effective(argv: list[str]):
    """Snakemake's own parse of the command line (profiles merged exactly as a run merges them)."""
    from snakemake.cli import parse_args

    return parse_args(argv)[1]


def _profile(name: str) -> dict:
    return yaml.safe_load((REPO / "profiles" / name / "profile.yaml").read_text())


def test_no_implicit_workflow_profile() -> None:
    # Snakemake loads profiles/default automatically and lets it override --profile.
    assert not (REPO / "profiles" / "default").exists()


@pytest.mark.parametrize("name", ["slurm", "local"])
def test_effective_settings_equal_the_profile(name: str, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    args = _effective(["-n", "--profile", f"profiles/{name}"])
    prof = _profile(name)
    assert args.retries == prof["retries"]
    assert args.latency_wait == prof["latency-wait"]
    assert set(args.default_resources) >= set(prof["default-resources"])
    assert args.executor == prof.get("executor")
    if name == "slurm":
        assert {"slurm_account", "slurm_partition", "cpus_per_task"} <= set(args.default_resources)
        arrays = getattr(args, "slurm_array_jobs", None)
        assert not isinstance(arrays, str) or not arrays  # unset: resources differ per job


def test_control_a_default_profile_would_shadow(tmp_path, monkeypatch) -> None:
    """The check above can fail: with a profiles/default next to the Snakefile, it wins."""
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(REPO / "Snakefile", work / "Snakefile")
    shutil.copytree(REPO / "profiles", work / "profiles")
    shutil.copytree(REPO / "profiles" / "local", work / "profiles" / "default")
    monkeypatch.chdir(work)
    args = _effective(["-n", "--profile", "profiles/slurm"])
    assert args.retries != _profile("slurm")["retries"]
    assert args.latency_wait != _profile("slurm")["latency-wait"]


def _dry_run_resources(stdout: str) -> list[tuple[str, dict[str, str], dict[str, str]]]:
    """(rule, wildcards, resources) of every job a dry run prints."""
    jobs, rule, wildcards = [], None, {}
    for line in stdout.splitlines():
        if m := re.match(r"^(?:local)?rule (\w+):", line):
            rule, wildcards = m[1], {}
        elif line.strip().startswith("wildcards:"):
            wildcards = dict(kv.split("=", 1) for kv in line.split(":", 1)[1].strip().split(", "))
        elif line.strip().startswith("resources:") and rule:
            res = dict(kv.split("=", 1) for kv in line.split(":", 1)[1].strip().split(", "))
            jobs.append((rule, wildcards, res))
    return jobs


def test_dry_run_jobs_carry_cost_model_requests(tmp_path) -> None:
    cfg_file = tmp_path / "capped.yaml"
    cfg = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    # a short partition limit and inflated estimates: some requests hit the limit, some do not
    cfg["resources"] = {"max_runtime_min": 22, "runtime_factor": 50.0}
    cfg_file.write_text(yaml.safe_dump(cfg))
    proc = run_snakemake(
        ["-n", "--profile", str(REPO / "profiles" / "slurm"), "--configfile", str(cfg_file)],
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    jobs = _dry_run_resources(proc.stdout + proc.stderr)
    config = load_config(cfg_file)
    chunks = {r["chunk"]: len(r["seeds"]) for r in run_table(config)}
    bo = [(w, r) for rule, w, r in jobs if rule == "bo_run"]
    assert len(bo) == len(run_table(config))
    capped = 0
    for w, r in bo:
        job = cost.bo_job_cost(config, w["problem"], w["method"], chunks[w["chunk"]])
        assert int(r["runtime"]) == cost.runtime_request_min(job, config) <= 22
        assert int(r["mem_mb"]) == cost.mem_request_mb(job, config)
        assert r["cpus_per_task"] == "1" and "slurm_account" in r and "slurm_partition" in r
        capped += int(r["runtime"]) == 22
    assert 0 < capped < len(bo), "the short limit should cap some requests, not all"
    kinds = {rule for rule, _, _ in jobs}
    assert {"score_run", "p2_e1", "p2_e2", "p2_e3_static", "p2_e3_dynamic", "p2_e4"} <= kinds
    for rule, _, r in jobs:
        if rule.startswith("p2_e") or rule == "score_run":
            assert 10 <= int(r["runtime"]) <= 22


def test_paper_config_requests_fit_a_24h_partition() -> None:
    config = load_config(REPO / "config" / "paper.yaml")
    jobs = cost.workflow_job_costs(config)
    assert max(cost.runtime_request_min(j, config) for j in jobs) <= 1440
    rows = {r["problem"] + "/" + r["method"]: r for r in run_table(config)}
    # expensive methods and d >= 50 run one seed per job; cheap low-d runs share a job
    assert all(
        len(r["seeds"]) == 1
        for k, r in rows.items()
        if k.split("/")[1] in {"kg", "jes", "mes", "pes", "gibbon"}
    )
    assert all(
        len(r["seeds"]) == 1
        for k, r in rows.items()
        if k.startswith(("lasso180/", "rosenbrock50/", "rover60/"))
    )
    assert len(rows["branin/random"]["seeds"]) == config["seeds_per_job"]
    # the retry budget of bo_run covers its longest job's resubmissions
    longest = max((j for j in jobs if j.rule == "bo_run"), key=lambda j: j.cpu_s)
    assert cost.segments_needed(longest, config) > 1
