"""The workflow on a real SLURM scheduler (`pytest -m slurm`; CI starts one with .ci/start_slurm.sh).

A tiny config (tests/workflow/data/slurm_tiny.yaml) runs once locally and once through
`--profile profiles/slurm`; every output must equal the local run's (timing columns aside).
During the SLURM run one running BO job is `scancel`led after its first checkpoint: the
profile's retry must resubmit it, the job must resume from the checkpoint (its log says so)
and its trace must be identical to the uninterrupted local trace.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
from wfhelpers import REPO, snakemake_cmd

from boexplore.pipeline.paper2_grid import job_files, resolve_config
from boexplore.workflow_config import load_config, run_table

pytestmark = pytest.mark.slurm

CONFIG = Path(__file__).with_name("data") / "slurm_tiny.yaml"
RUN = "ci_slurm"
CANCEL = {"problem": "branin", "method": "kg", "chunk": "seed0"}
TIMING = ("fit_seconds", "acq_seconds", "seconds", "wall", "cpu_time", "runtime")


def _node_state() -> str:
    try:
        out = subprocess.run(
            ["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=10
        )
    except (FileNotFoundError, subprocess.TimeoutExpired) as exc:
        return f"sinfo failed: {exc}"
    return out.stdout.strip() or out.stderr.strip()


@pytest.fixture(scope="module")
def slurm_cluster() -> None:
    """A SLURM cluster with an idle node; started with .ci/start_slurm.sh when possible."""
    if shutil.which("sbatch") is None:
        pytest.skip(
            "SLURM is not installed (apt-get install -y slurm-wlm munge; .ci/start_slurm.sh)"
        )
    if not any(s in _node_state() for s in ("idle", "mix")):
        if os.geteuid() != 0:
            pytest.skip("no idle SLURM node and not root: cannot start .ci/start_slurm.sh")
        proc = subprocess.run(
            ["bash", str(REPO / ".ci" / "start_slurm.sh")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if proc.returncode != 0:
            pytest.skip(f"SLURM cannot start here: {(proc.stderr or proc.stdout).strip()[-500:]}")


def _targets() -> list[str]:
    cfg = load_config(CONFIG)
    p2 = job_files(resolve_config(cfg["parametric"]), f"results/{RUN}", f"figures/{RUN}")
    return [
        f"results/{RUN}/tables/metrics.parquet",
        f"results/{RUN}/tables/bounds_summary.csv",
        *p2["e1"],
        *p2["e2"],
        *p2["e3_static"],
        *p2["e3_dynamic"],
        *p2["e4"],
    ]


def _env() -> dict[str, str]:
    return dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def _snakemake(profile: str, extra: list[str]) -> list[str]:
    return [
        *snakemake_cmd(),
        "-s",
        str(REPO / "Snakefile"),
        *_targets(),  # before --configfile, which takes several values
        "--profile",
        str(REPO / "profiles" / profile),
        *extra,
        "--configfile",
        str(CONFIG),
    ]


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("local")
    proc = subprocess.run(
        _snakemake("local", []), cwd=work, env=_env(), capture_output=True, text=True, timeout=1800
    )
    assert proc.returncode == 0, proc.stderr[-6000:]
    return work


def _slurm_job_id(comment_parts: list[str]) -> tuple[str, str] | None:
    """(job id, state) of the queued job whose comment names every part."""
    out = subprocess.run(["squeue", "-h", "-o", "%i|%T|%k"], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        job_id, state, comment = line.split("|", 2)
        if all(p in comment for p in comment_parts):
            return job_id, state
    return None


def _checkpoint_iteration(path: Path) -> int | None:
    from boexplore.bo.checkpoint import checkpoint_iteration

    return checkpoint_iteration(path)  # None: not written yet (or mid-rename)


@pytest.fixture(scope="module")
def slurm_run(slurm_cluster, local_run, tmp_path_factory) -> dict:
    """Run through SLURM; cancel the chosen BO job once it has checkpointed an iteration."""
    work = tmp_path_factory.mktemp("slurm")
    cmd = _snakemake(
        "slurm",
        [
            "--slurm-status-command",
            "squeue",  # the test cluster has no accounting database for sacct
            "--slurm-init-seconds-before-status-checks",
            "2",
            "--jobs",
            "4",
        ],
    )
    ckpt = (
        work
        / f"results/{RUN}/checkpoints/{CANCEL['problem']}/{CANCEL['method']}/{CANCEL['chunk']}.ckpt"
    )
    parts = ["bo_run", CANCEL["problem"], CANCEL["method"], CANCEL["chunk"]]
    start = time.monotonic()
    log = open(work / "snakemake.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        cmd, cwd=work, env=_env(), stdout=log, stderr=subprocess.STDOUT, text=True
    )
    cancelled = None
    try:
        while proc.poll() is None and time.monotonic() - start < 1800:
            if cancelled is None:
                it = _checkpoint_iteration(ckpt)
                job = _slurm_job_id(parts)
                if it is not None and it >= 1 and job and job[1] == "RUNNING":
                    subprocess.run(["scancel", job[0]], check=True)
                    cancelled = {"job_id": job[0], "iteration": it}
            time.sleep(0.2)
        if proc.poll() is None:
            proc.kill()
            pytest.fail("SLURM run did not finish within 30 min")
    finally:
        log.close()
        if proc.poll() is None:
            proc.kill()
    text = (work / "snakemake.log").read_text()
    assert proc.returncode == 0, text[-6000:]
    return {"work": work, "cancelled": cancelled, "seconds": time.monotonic() - start, "log": text}


def _drop_timing(frame: pd.DataFrame) -> pd.DataFrame:
    keep = [c for c in frame.columns if not any(t in c for t in TIMING)]
    return frame[keep].reset_index(drop=True)


def _read(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def test_jobs_ran_on_slurm(slurm_run) -> None:
    """Every BO, scoring and paper-2 job went through sbatch (local rules excepted)."""
    import re

    submitted = re.findall(r"has been submitted with SLURM jobid (\d+)", slurm_run["log"])
    cfg = load_config(CONFIG)
    p2 = job_files(resolve_config(cfg["parametric"]), f"results/{RUN}", f"figures/{RUN}")
    remote = 2 * len(run_table(cfg)) + sum(
        len(p2[k]) for k in ("e1", "e2", "e3_static", "e3_dynamic", "e4")
    )
    assert len(set(submitted)) == remote + 1  # + the resubmission of the cancelled job
    print(f"\nSLURM run: {slurm_run['seconds']:.0f} s, {len(set(submitted))} sbatch jobs")


def test_outputs_equal_the_local_run(slurm_run, local_run) -> None:
    work = slurm_run["work"]
    cfg = load_config(CONFIG)
    files = [
        f"results/{RUN}/runs/{r['problem']}/{r['method']}/{r['chunk']}.parquet"
        for r in run_table(cfg)
    ]
    files += [
        f"results/{RUN}/metrics/{r['problem']}/{r['method']}/{r['chunk']}.parquet"
        for r in run_table(cfg)
    ]
    files += [t for t in _targets() if not t.endswith("bounds_summary.csv")]
    files += [f"results/{RUN}/tables/bounds_summary.csv", f"results/{RUN}/tables/bounds.parquet"]
    for rel in files:
        remote, local = _read(work / rel), _read(local_run / rel)
        pd.testing.assert_frame_equal(_drop_timing(remote), _drop_timing(local), obj=rel)


def test_cancelled_job_resumed_from_its_checkpoint(slurm_run, local_run) -> None:
    cancelled = slurm_run["cancelled"]
    assert cancelled is not None, "the BO job finished before it could be cancelled"
    work = slurm_run["work"]
    job_log = (
        work / f"logs/{RUN}/runs/{CANCEL['problem']}/{CANCEL['method']}/{CANCEL['chunk']}.log"
    ).read_text()
    assert "resuming from" in job_log, job_log[-2000:]
    resumed_after = int(
        job_log.split("resuming from", 1)[1].split("after iteration", 1)[1].split()[0]
    )
    assert resumed_after >= cancelled["iteration"]
    rel = f"results/{RUN}/runs/{CANCEL['problem']}/{CANCEL['method']}/{CANCEL['chunk']}.parquet"
    pd.testing.assert_frame_equal(
        _drop_timing(_read(work / rel)), _drop_timing(_read(local_run / rel)), obj=rel
    )
    # the scheduler saw the cancellation and Snakemake resubmitted the job
    assert cancelled["job_id"] in slurm_run["log"]


def test_control_a_different_trace_is_detected(local_run) -> None:
    """The equality check can fail: a trace of another seed differs outside the timing columns."""
    a = _read(local_run / f"results/{RUN}/runs/branin/kg/seed0.parquet")
    b = _read(local_run / f"results/{RUN}/runs/branin/kg/seed1.parquet")
    with pytest.raises(AssertionError):
        pd.testing.assert_frame_equal(_drop_timing(a), _drop_timing(b))
