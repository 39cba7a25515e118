"""Restore and score every job a data release holds, in one process.

The workflow's ``restore_run`` and ``score_run`` rules do this one job at a time; for a release
of a thousand jobs their process start-ups cost more than the work (about an hour on two
cores for the replicate release). :func:`restore_release` makes the same files with the same
library calls, after the same integrity checks, so Snakemake finds them done and runs only
the analysis. Jobs the release does not hold at their full budget are left to the workflow
(BO, or BO extending a shorter released trace).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boexplore.pipeline.integrity import check_job_release
from boexplore.pipeline.metrics_stage import score_run
from boexplore.pipeline.release import (
    restore_files,
    restore_roots,
    restore_seeds,
    restore_trace,
)
from boexplore.workflow_config import run_table


@dataclass
class BulkReport:
    """What :func:`restore_release` did, job keys (``problem/method/chunk``) by outcome."""

    restored: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    left_to_workflow: list[str] = field(default_factory=list)
    scored: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        """One line for the terminal."""
        return (
            f"restored {len(self.restored)} jobs, kept {len(self.kept)} already there, scored "
            f"{self.scored}; {len(self.left_to_workflow)} left to the workflow (not held at "
            f"their full budget); {self.seconds:.0f} s"
        )


def restore_release(
    config: Mapping[str, Any],
    results_root: Path = Path("results"),
    progress: Callable[[str], None] | None = None,
    every: int = 100,
) -> BulkReport:
    """Restore (``results/<run>/runs``) and score (``metrics``) every job the release of
    ``config`` holds complete. A run file at least as new as its released sources is kept
    (as Snakemake would); a metrics file older than its run file is re-scored."""
    if not (config.get("release") or {}).get("traces"):
        raise ValueError("the config has no release.traces: nothing to restore")
    start = time.perf_counter()
    results = Path(results_root) / str(config["run_name"])
    roots = restore_roots(config["release"])
    report = BulkReport()
    checked: set[tuple[str, str]] = set()
    rows = run_table(config)
    for i, row in enumerate(rows, 1):
        problem, method, chunk = row["problem"], row["method"], row["chunk"]
        key = f"{problem}/{method}/{chunk}"
        run_file = results / "runs" / f"{key}.parquet"
        if (problem, method) not in checked:
            check_job_release(roots, problem, method)
            checked.add((problem, method))
        sources = _sources(config, row)
        if run_file.exists() and _newer_than(run_file, sources):
            report.kept.append(key)
        else:
            if not sources:
                report.left_to_workflow.append(key)
                continue
            if len(sources) == 1 and sources[0].stem == chunk:
                restore_trace(sources[0], run_file)
            else:
                restore_seeds(sources, row["seeds"], run_file)
            report.restored.append(key)
        metrics_file = results / "metrics" / f"{key}.parquet"
        if not metrics_file.exists() or metrics_file.stat().st_mtime < run_file.stat().st_mtime:
            metrics_file.parent.mkdir(parents=True, exist_ok=True)
            score_run(run_file, metrics_file)
            report.scored += 1
            for rule, out in (("restore_run", run_file), ("score_run", metrics_file)):
                _align_benchmark(results / "benchmarks" / rule / f"{key}.tsv", out)
        if progress is not None and (i % every == 0 or i == len(rows)):
            progress(f"{i}/{len(rows)} jobs ({time.perf_counter() - start:.0f} s)")
    report.seconds = time.perf_counter() - start
    return report


def _align_benchmark(benchmark: Path, output: Path) -> None:
    """Stamp an earlier job's benchmark file with ``output``'s time when it is older.

    Snakemake counts a rule's benchmark file among its outputs: a benchmark left by an earlier
    restore or scoring of this job (e.g. one that ran BO here before the release was exported)
    would be older than the file just remade and make Snakemake re-run the job. The file keeps
    its measured times (``boexplore estimate --compare`` reads them); only its stamp moves.
    """
    if benchmark.exists() and benchmark.stat().st_mtime < output.stat().st_mtime:
        stamp = output.stat()
        os.utime(benchmark, (stamp.st_atime, stamp.st_mtime))


def _newer_than(path: Path, sources: list[Path]) -> bool:
    """Whether ``path`` is at least as new as every source (Snakemake's mtime rule)."""
    stamp = path.stat().st_mtime
    return all(src.stat().st_mtime <= stamp for src in sources)


def _sources(config: Mapping[str, Any], row: Mapping[str, Any]) -> list[Path]:
    """Released files of one run-table row at its full budget ([] when not held)."""
    files = restore_files(
        config["release"], row["problem"], row["method"], row["chunk"], row["seeds"], row["budget"]
    )
    return [Path(f) for f in files] if files else []
