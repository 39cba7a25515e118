"""A Snakemake run killed (-9, whole process group) mid-BO and rerun gives the tables of a clean
run; a changed problem instance between the two runs gives a fresh run of the new instance."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from faulthelpers import TIMING
from wfhelpers import REPO, run_snakemake, snakemake_cmd

from boexplore.bo.checkpoint import checkpoint_iteration
from boexplore.workflow_config import run_table, validate_config

pytestmark = pytest.mark.faults

RUN = "faults"
CONFIG = {
    "run_name": RUN,
    "description": "fault-injection workflow: one problem, a sequential and a batch method",
    "problems": {"h6": {"name": "hartmann6_embedded", "dim": 8, "instance_seed": 0}},
    "methods": {"logei": "logei", "ucb_q2": "ucb(beta=4)+q2"},
    "seeds": [0, 1],
    "seeds_per_job": 2,
    "budget": 12,
    "n_init": 4,
    "bo": {"num_restarts": 2, "raw_samples": 32, "extra": {"mc_samples": 16, "acq_maxiter": 20}},
    "parametric": {"enabled": False},
    "numerics": {"profile": "unpinned"},  # the in-process reference runs are unpinned too
}


def _write_config(directory: Path, instance_seed: int = 0) -> Path:
    cfg = {
        **CONFIG,
        "problems": {"h6": {**CONFIG["problems"]["h6"], "instance_seed": instance_seed}},
    }
    path = directory / "faults.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _targets() -> list[str]:
    rows = run_table(validate_config(CONFIG))
    return [
        f"results/{RUN}/metrics/{r['problem']}/{r['method']}/{r['chunk']}.parquet" for r in rows
    ]


def _snakemake(directory: Path, config: Path, *extra: str) -> subprocess.CompletedProcess:
    args = [*_targets(), "--cores", "1", *extra, "--configfile", str(config)]  # nargs=+ last
    res = run_snakemake(args, cwd=directory, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    return res


def _tables(directory: Path) -> dict[str, pd.DataFrame]:
    out = {}
    for stage in ("runs", "metrics"):
        for path in sorted((directory / "results" / RUN / stage).rglob("*.parquet")):
            frame = pd.read_parquet(path)
            out[str(path.relative_to(directory))] = frame.drop(columns=TIMING, errors="ignore")
    return out


def _same_tables(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> None:
    assert sorted(a) == sorted(b) and a
    for name in a:
        timing = [c for c in a[name].columns if c.endswith("_seconds")]
        pd.testing.assert_frame_equal(a[name].drop(columns=timing), b[name].drop(columns=timing))


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, pd.DataFrame]:
    directory = tmp_path_factory.mktemp("clean")
    _snakemake(directory, _write_config(directory))
    return _tables(directory)


def _kill_mid_run(directory: Path, config: Path, min_iteration: int = 2) -> None:
    """Start the workflow and SIGKILL its process group once some seed-1 checkpoint passes
    ``min_iteration`` (seed 0 of that job is done, seed 1 half way)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [*snakemake_cmd(), "-s", str(REPO / "Snakefile"), *_targets(), "--cores", "1",
           "--configfile", str(config)]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=directory, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    ckpts = directory / "results" / RUN / "checkpoints"
    end = time.monotonic() + 600
    try:
        while time.monotonic() < end and proc.poll() is None:
            its = [checkpoint_iteration(p) for p in ckpts.rglob("seed1.ckpt")]
            if any(it is not None and it >= min_iteration for it in its):
                os.killpg(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.05)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the workflow finished before it could be killed"


def test_killed_workflow_resumes_to_identical_tables(tmp_path, clean) -> None:
    config = _write_config(tmp_path)
    _kill_mid_run(tmp_path, config)
    rerun = [*_targets(), "--cores", "1", "--configfile", str(config)]
    res = run_snakemake(rerun, cwd=tmp_path)
    if res.returncode != 0 and "cannot be locked" in res.stderr:  # kill -9 leaves the lock
        run_snakemake(["--unlock", "--configfile", str(config)], cwd=tmp_path)
        res = run_snakemake(rerun, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    _same_tables(_tables(tmp_path), clean)
    assert not [p for p in (tmp_path / "results" / RUN / "checkpoints").rglob("*") if p.is_file()]


def test_changed_instance_after_kill_is_a_fresh_run(tmp_path) -> None:
    """Killed at instance 0, config changed to instance 1: the traces are clean instance-1 runs."""
    from boexplore.pipeline.runs_stage import run_from_spec
    from boexplore.workflow_config import method_bo_settings

    _kill_mid_run(tmp_path, _write_config(tmp_path, instance_seed=0))
    config = _write_config(tmp_path, instance_seed=1)
    run_snakemake(["--unlock", "--configfile", str(config)], cwd=tmp_path)
    _snakemake(tmp_path, config, "--rerun-incomplete")
    problem_json = tmp_path / "results" / RUN / "problems" / "h6.json"
    assert '"instance_seed": 1' in problem_json.read_text()
    cfg = validate_config(yaml.safe_load(config.read_text()))
    for row in run_table(cfg):
        clean = tmp_path / "clean" / f"{row['method']}.parquet"
        run_from_spec(problem_json, row["problem"], row["method"], cfg["methods"][row["method"]],
                      row["seeds"], row["budget"], row["n_init"],
                      method_bo_settings(cfg, row["method"]), clean)  # fmt: skip
        got = tmp_path / "results" / RUN / "runs" / row["problem"] / row["method"]
        _same_tables(
            {"t": pd.read_parquet(got / f"{row['chunk']}.parquet").drop(columns=TIMING)},
            {"t": pd.read_parquet(clean).drop(columns=TIMING)},
        )
    stale = list((tmp_path / "results" / RUN / "checkpoints").rglob("*.stale-identity"))
    assert stale, "the old instance's checkpoint was moved aside, not resumed"
