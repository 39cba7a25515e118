"""Local runs do not re-schedule on Snakemake's 1-second timer; explicit limits are kept."""

from __future__ import annotations

import inspect
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from snakemake.cli import get_argument_parser
from snakemake.scheduling.job_scheduler import JobRateLimiter, JobScheduler
from snakemake.settings.types import MaxJobsPerTimespan

from boexplore.pipeline.scheduling import REEVALUATION, SNAKEMAKE_DEFAULT, relax_rescheduling_timer

REPO = Path(__file__).resolve().parents[2]
RELAXED_LOG = "Submitting maximum 10000 job(s) over 60.0 second(s)."


def _workflow(limit: str | None, local: bool = True) -> SimpleNamespace:
    limiter = None if limit is None else JobRateLimiter(MaxJobsPerTimespan.parse_choice(limit))
    scheduler = SimpleNamespace(job_rate_limiter=limiter, _open_jobs=threading.Semaphore(0))
    setattr(scheduler, REEVALUATION, lambda delay: None)
    return SimpleNamespace(scheduler=scheduler, local_exec=local)


def test_the_installed_scheduler_has_the_shape_the_swap_needs():
    """A Snakemake upgrade that moves these makes the swap a silent no-op: fail here instead."""
    assert callable(getattr(JobScheduler, REEVALUATION))
    init = inspect.getsource(JobScheduler.__init__)
    assert "self.job_rate_limiter = (" in init and "self._open_jobs = threading.Semaphore" in init
    assert isinstance(JobRateLimiter.max_jobs, property)
    assert isinstance(JobRateLimiter.timespan, property)


def test_the_default_we_replace_is_the_installed_snakemakes_default():
    limit = get_argument_parser().parse_args([]).max_jobs_per_timespan
    assert (limit.max_jobs, limit.timespan) == SNAKEMAKE_DEFAULT


def test_a_local_run_with_the_default_limit_gets_the_one_minute_timer():
    wf = _workflow("100/1s")
    assert relax_rescheduling_timer(wf)
    limiter = wf.scheduler.job_rate_limiter
    assert (limiter.max_jobs, limiter.timespan) == (10000, 60)
    assert limiter.get_free_jobs() == 10000
    getattr(wf.scheduler, REEVALUATION)(0.01)  # a daemon timer that releases the scheduler
    assert wf.scheduler._open_jobs.acquire(timeout=5)
    assert all(t.daemon for t in threading.enumerate() if isinstance(t, threading.Timer))


def test_an_explicit_limit_a_cluster_executor_or_a_dry_run_is_left_alone():
    for wf in (_workflow("5/1s"), _workflow("100/1s", local=False), _workflow(None)):
        before = wf.scheduler.job_rate_limiter
        assert not relax_rescheduling_timer(wf)
        assert wf.scheduler.job_rate_limiter is before
    assert not relax_rescheduling_timer(SimpleNamespace(local_exec=True))


@pytest.mark.parametrize(
    ("extra", "relaxed"), [([], True), (["--max-jobs-per-timespan", "5/1s"], False)]
)
def test_a_real_snakemake_run_swaps_the_limiter_in_onstart(tmp_path, extra, relaxed):
    """Snakemake builds its scheduler before ``onstart``; the swap shows in its debug log."""
    (tmp_path / "Snakefile").write_text(
        "onstart:\n"
        "    from boexplore.pipeline.scheduling import relax_rescheduling_timer\n"
        "    relax_rescheduling_timer(workflow)\n\n"
        "rule done:\n"
        "    output: 'done.txt'\n"
        "    shell: 'touch {output}'\n"
    )
    snakemake = Path(sys.executable).with_name("snakemake")
    started = time.monotonic()
    run = subprocess.run(
        [str(snakemake), "--cores", "1", "--verbose", *extra],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    # a non-daemon pending timer would hold the finished process for the whole minute
    assert time.monotonic() - started < 50
    assert (tmp_path / "done.txt").exists()
    assert (RELAXED_LOG in run.stderr + run.stdout) is relaxed


def test_the_workflow_swaps_it_in_onstart():
    snakefile = (REPO / "Snakefile").read_text()
    onstart = snakefile[snakefile.index("onstart:") :].split("\n\n\n")[0]
    assert "relax_rescheduling_timer(workflow)" in onstart


def test_the_slurm_profile_throttles_with_the_key_snakemake_9_reads():
    profile = yaml.safe_load((REPO / "profiles/slurm/profile.yaml").read_text())
    assert "max-jobs-per-second" not in profile  # ignored beside the 100/1s default
    limit = MaxJobsPerTimespan.parse_choice(profile["max-jobs-per-timespan"])
    assert limit.max_jobs / limit.timespan <= 5
