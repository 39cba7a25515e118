"""Snakemake's re-scheduling timer, relaxed for local runs.

With its default rate limit (``--max-jobs-per-timespan 100/1s``) Snakemake starts a new job
selection round every second even while every core is busy, and each round stats the input
files of every ready job. On the beyond-d tier's 985-job DAG that held a quarter of one core
(of two) for the whole run, taken from the BO jobs beside it. A finished job starts a round by
itself, so on a local machine the timer only enforces the rate limit; a one-minute timespan
with a limit no local run reaches keeps scheduling as prompt as before at almost no CPU.

Snakemake reads the limit into its scheduler before the Snakefile's ``onstart`` handler runs
and offers no setting a workflow can change, so the handler swaps the scheduler's rate limiter,
and makes its timer threads daemons: Snakemake's are not, and a process waits for a pending
one at exit (a minute after every run, where the 1-second timer cost a second).

Only Snakemake's own default is replaced: a limit set on the command line or in a profile
(``profiles/slurm`` throttles submissions) is kept, and cluster executors are left alone. An
installed Snakemake without this shape leaves the run as it is (``tests/workflow`` checks the
shape of the installed one).
"""

from __future__ import annotations

import threading
from typing import Any

SNAKEMAKE_DEFAULT = (100, 1.0)
"""Snakemake's ``--max-jobs-per-timespan`` default: 100 jobs per 1 s (jobs, seconds)."""

LOCAL_LIMIT = "10000/1m"
"""What a local run uses instead: a round every minute at most from the timer."""

REEVALUATION = "_schedule_reevalutation"
"""The scheduler's method that starts a timed re-evaluation (Snakemake's spelling)."""


def relax_rescheduling_timer(workflow: Any) -> bool:
    """Swap Snakemake's default 1-second rate limiter of a local run for LOCAL_LIMIT.

    ``workflow`` is Snakemake's ``Workflow`` (the Snakefile's ``workflow``) once its scheduler
    exists, i.e. in ``onstart``. Returns True when the limiter was swapped; False, changing
    nothing, when the limit is not Snakemake's default, the executor is not local, or the
    scheduler has no rate limiter (dry runs, ``--touch``) or not Snakemake 9's shape.
    """
    scheduler = getattr(workflow, "scheduler", None)
    limiter = getattr(scheduler, "job_rate_limiter", None)
    open_jobs = getattr(scheduler, "_open_jobs", None)
    local = getattr(workflow, "local_exec", False)
    if limiter is None or open_jobs is None or not hasattr(scheduler, REEVALUATION) or not local:
        return False
    if (
        getattr(limiter, "max_jobs", None),
        getattr(limiter, "timespan", None),
    ) != SNAKEMAKE_DEFAULT:
        return False
    from snakemake.settings.types import MaxJobsPerTimespan  # only ever called inside Snakemake

    def reevaluate_later(delay: float) -> None:
        timer = threading.Timer(delay, open_jobs.release)
        timer.daemon = True  # a pending re-evaluation never holds the finished process
        timer.start()

    setattr(scheduler, REEVALUATION, reevaluate_later)
    scheduler.job_rate_limiter = type(limiter)(MaxJobsPerTimespan.parse_choice(LOCAL_LIMIT))
    return True
