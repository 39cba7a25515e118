"""Every shipped config builds its DAG; a bad config fails before any job."""

from __future__ import annotations

import pytest
from wfhelpers import CONFIGS, REPO, run_snakemake


@pytest.mark.parametrize("name", CONFIGS)
def test_dry_run(name: str, tmp_path) -> None:
    proc = run_snakemake(
        [
            "-n",
            "--quiet",
            "rules",
            "--cores",
            "2",
            "--configfile",
            str(REPO / "config" / f"{name}.yaml"),
        ],
        cwd=tmp_path,
        timeout=600,  # paper: ~8,400 jobs (one seed per expensive / high-d BO job), ~25 CPU-s
    )
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    assert "bo_run" in proc.stdout + proc.stderr
    # the progress plan (onstart) is for real runs only: a dry run writes nothing
    assert "[progress]" not in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()


def test_dry_run_slurm_profile(tmp_path) -> None:
    proc = run_snakemake(
        [
            "-n",
            "--profile",
            str(REPO / "profiles" / "slurm"),
            "--configfile",
            str(REPO / "config" / "smoke.yaml"),
        ],
        cwd=tmp_path,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]


def test_bad_config_rejected_before_jobs(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "run_name: bad\nproblems: {b: {name: branin, dim: 2}}\nmethods: {m: random}\nseeds: [0]\nbudget: -1\n"
    )
    proc = run_snakemake(
        ["-n", "--cores", "1", "--configfile", str(bad)], cwd=tmp_path, timeout=120
    )
    assert proc.returncode != 0
    assert "budget" in proc.stderr + proc.stdout
    assert not (tmp_path / "results").exists()


def test_lint_is_clean(tmp_path) -> None:
    proc = run_snakemake(
        ["--lint", "--configfile", str(REPO / "config" / "smoke.yaml")], cwd=tmp_path, timeout=180
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
