"""Re-run a sample of a data release's BO jobs and measure how far the new traces are from it.

``boexplore verify --configfile config/replicate.yaml --sample 20`` picks jobs from the
release (stratified over problems and methods, seeded), re-runs each seed with the
config's settings under a numerics profile (``boexplore.numerics``), and reports per trace
the first BO iteration whose point differs from the committed one beyond float32 rounding
(the release stores float32), the largest differences in x and y, and the CPU seconds.
With ``--claims`` it also rebuilds the claims table from the release with the re-run traces
swapped in and compares every claim's verdict and statistic with the committed table.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

log = logging.getLogger("boexplore.pipeline")

#: Columns that must agree for a trace to count as reproduced (float32 of the re-run value
#: equal to the committed float32 value).
COMPARED = ("y",)


@dataclass(frozen=True)
class ReleaseJob:
    """One committed trace file: a (problem, method, seed chunk) job of the release."""

    problem: str
    method: str
    chunk: str
    path: Path


@dataclass
class TraceCheck:
    """How one re-run seed compares with its committed trace."""

    problem: str
    method: str
    chunk: str
    seed: int
    evaluations: int
    first_divergent_iteration: int | None
    first_divergent_eval: int | None
    max_abs_dx: float
    max_abs_dy: float
    cpu_seconds: float
    profile: str
    prefix_evaluations: int = 0

    @property
    def identical(self) -> bool:
        """True when every evaluation equals the committed one at float32."""
        return self.first_divergent_eval is None


def release_jobs(traces_dir: Path, config: Mapping[str, Any] | None = None) -> list[ReleaseJob]:
    """Every trace file under ``traces_dir`` (``<problem>/<method>/<chunk>.parquet``).

    With ``config``, only jobs whose problem and method the config still defines.
    """
    traces_dir = Path(traces_dir)
    if not traces_dir.is_dir():
        raise FileNotFoundError(f"release traces directory {traces_dir} does not exist")
    jobs = []
    for path in sorted(traces_dir.glob("*/*/*.parquet")):
        problem, method = path.parent.parent.name, path.parent.name
        if config is not None and (
            problem not in config.get("problems", {}) or method not in config.get("methods", {})
        ):
            continue
        jobs.append(ReleaseJob(problem, method, path.stem, path))
    if not jobs:
        raise FileNotFoundError(
            f"no release traces (<problem>/<method>/<chunk>.parquet) in {traces_dir}"
        )
    return jobs


def sample_jobs(jobs: Sequence[ReleaseJob], n: int, seed: int = 0) -> list[ReleaseJob]:
    """``n`` jobs spread over (problem, method) cells: one per cell in shuffled order, repeat.

    Deterministic in ``seed``; ``n >= len(jobs)`` returns every job.
    """
    if n >= len(jobs):
        return list(jobs)
    rng = random.Random(seed)
    cells: dict[tuple[str, str], list[ReleaseJob]] = {}
    for job in jobs:
        cells.setdefault((job.problem, job.method), []).append(job)
    order = sorted(cells)
    rng.shuffle(order)
    for key in order:
        rng.shuffle(cells[key])
    picked: list[ReleaseJob] = []
    while len(picked) < n:
        for key in order:
            if cells[key] and len(picked) < n:
                picked.append(cells[key].pop())
    return picked


def compare_trace(new: pd.DataFrame, old: pd.DataFrame) -> dict[str, Any]:
    """First evaluation where ``new`` (float64) and ``old`` (float32 release) differ.

    A value counts as equal when its float32 rounding equals the committed value, i.e. the
    comparison is exact up to the release's storage precision. Returns the first divergent
    evaluation index and BO iteration (None when identical) and the largest |dx|, |dy|.
    """
    xcols = [c for c in old.columns if c.startswith("x_")]
    n = min(len(new), len(old))
    if len(new) != len(old):
        log.warning("re-run has %d evaluations, the release %d", len(new), len(old))
    cols = [*xcols, *COMPARED]
    a = new[cols].to_numpy(dtype=np.float64)[:n]
    b = old[cols].to_numpy(dtype=np.float64)[:n]
    same = (a.astype(np.float32) == b.astype(np.float32)) | (np.isnan(a) & np.isnan(b))
    bad = np.nonzero(~same.all(axis=1))[0]
    dx = np.abs(a[:, : len(xcols)] - b[:, : len(xcols)])
    dy = np.abs(a[:, len(xcols) :] - b[:, len(xcols) :])
    first = int(bad[0]) if bad.size else None
    if first is None and len(new) != len(old):
        first = n
    return {
        "evaluations": int(len(old)),
        "first_divergent_eval": first,
        "first_divergent_iteration": (
            int(old["iteration"].iloc[first]) if first is not None and first < len(old) else first
        ),
        "max_abs_dx": float(np.nanmax(dx)) if dx.size else 0.0,
        "max_abs_dy": float(np.nanmax(dy)) if dy.size else 0.0,
    }


def released_prefix(committed: pd.DataFrame, root: Path = Path(".")) -> pd.DataFrame | None:
    """The released traces ``committed`` continues (its identity's ``extended_from``), expanded
    to float64 as the workflow reads them; None for a trace run from its first evaluation.

    A re-run must extend the same prefix (made perhaps under another numerics profile) rather
    than start afresh, so a missing prefix file, or one whose sha256 is not the recorded one,
    is an error: the re-run would be compared with a run it did not continue.
    """
    from boexplore.io import sha256_file
    from boexplore.pipeline.release import read_released

    source = (committed.attrs.get("boexplore") or {}).get("extended_from") or {}
    files = source.get("files") or {}
    if not files:
        return None
    for name, digest in sorted(files.items()):
        path = Path(root) / name
        if not path.exists():
            raise FileNotFoundError(
                f"the trace extends {name}, which is not here (run from the repository root)"
            )
        if sha256_file(path) != digest:
            raise ValueError(f"{name} is not the prefix the trace extends (sha256 differs)")
    return read_released([Path(root) / name for name in sorted(files)])


def rerun_job(
    job: ReleaseJob,
    config: Mapping[str, Any],
    problem_dir: Path,
    profile: str,
    keep_dir: Path | None = None,
) -> list[TraceCheck]:
    """Re-run every seed of ``job`` with the config's settings; compare each with the release.

    A trace that continues a released prefix is re-run the way the workflow made it: from the
    same prefix (:func:`released_prefix`), so only its own evaluations are re-computed. With
    ``keep_dir`` the re-run traces are stored there in the release layout.
    """
    import torch

    from boexplore.bo import run_bo
    from boexplore.pipeline.problems_stage import generate_problem
    from boexplore.problems import load_instance
    from boexplore.workflow_config import method_bo_settings, problem_design

    problem_json = Path(problem_dir) / f"{job.problem}.json"
    if not problem_json.exists():
        problem_json.parent.mkdir(parents=True, exist_ok=True)
        generate_problem(config["problems"][job.problem], problem_json, config.get("data", {}))
    problem = load_instance(problem_json)
    _, budget, n_init = problem_design(config, job.problem)
    settings = dict(method_bo_settings(config, job.method))
    torch.set_num_threads(int(settings.pop("torch_threads", 1)))
    extra = dict(settings.pop("extra", {}) or {})
    committed = pd.read_parquet(job.path)
    prefix = released_prefix(committed)
    checks = []
    traces = []
    for seed in sorted(int(s) for s in committed["seed"].unique()):
        own = prefix[prefix["seed"] == seed] if prefix is not None else None
        own = own if own is not None and len(own) else None
        t0 = time.process_time()
        trace = run_bo(
            problem,
            config["methods"][job.method],
            seed=seed,
            budget=budget,
            n_init=n_init,
            method_label=job.method,
            problem_label=job.problem,
            extend_from=own,
            **settings,
            **extra,
        )
        cpu = time.process_time() - t0
        traces.append(trace)
        old = committed[committed["seed"] == seed].reset_index(drop=True)
        diff = compare_trace(trace, old)
        checks.append(
            TraceCheck(
                problem=job.problem,
                method=job.method,
                chunk=job.chunk,
                seed=seed,
                cpu_seconds=round(cpu, 2),
                profile=profile,
                prefix_evaluations=0 if own is None else len(own),
                **diff,
            )
        )
        log.info(
            "%s/%s seed %d: %s",
            job.problem,
            job.method,
            seed,
            "identical"
            if checks[-1].identical
            else f"diverges at iteration {checks[-1].first_divergent_iteration}",
        )
    if keep_dir is not None:
        save_rerun(job, stamp_rerun(pd.concat(traces, ignore_index=True), committed), keep_dir)
    return checks


def stamp_rerun(trace: pd.DataFrame, committed: pd.DataFrame) -> pd.DataFrame:
    """Record what made a re-run trace, as the workflow does for the traces it releases (engine,
    numerics, CPU); a re-run from a released prefix names the same prefix files as the
    committed trace, so a re-run seed and the released seeds of one job can be merged."""
    from boexplore.bo.engine import stamp_trace

    stamp_trace(trace)
    source = (committed.attrs.get("boexplore") or {}).get("extended_from")
    if source:
        trace.attrs["boexplore"]["extended_from"] = source
    return trace


def _rerun_worker(args: tuple[ReleaseJob, dict, str, str, str | None]) -> list[dict[str, Any]]:
    job, config, problem_dir, profile, keep_dir = args
    keep = Path(keep_dir) if keep_dir else None
    return [asdict(c) for c in rerun_job(job, config, Path(problem_dir), profile, keep)]


def verify_release(
    config: Mapping[str, Any],
    jobs: Sequence[ReleaseJob],
    problem_dir: Path,
    profile: str,
    workers: int = 1,
    keep_dir: Path | None = None,
) -> pd.DataFrame:
    """Re-run ``jobs`` (in ``workers`` processes, which inherit the pinned environment)."""
    keep = str(keep_dir) if keep_dir is not None else None
    tasks = [(job, dict(config), str(problem_dir), profile, keep) for job in jobs]
    rows: list[dict[str, Any]] = []
    if workers <= 1:
        for i, task in enumerate(tasks, 1):
            rows.extend(_rerun_worker(task))
            log.info("verified %d / %d jobs", i, len(tasks))
    else:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers) as pool:
            for i, part in enumerate(pool.imap_unordered(_rerun_worker, tasks), 1):
                rows.extend(part)
                log.info("verified %d / %d jobs", i, len(tasks))
    table = pd.DataFrame(rows)
    for col in ("first_divergent_iteration", "first_divergent_eval"):
        table[col] = table[col].astype("Int64")
    return table.sort_values(["problem", "method", "seed"]).reset_index(drop=True)


def summarise(table: pd.DataFrame) -> dict[str, Any]:
    """Counts for the report: traces identical, diverging, and where divergence starts."""
    div = table[table["first_divergent_eval"].notna()]
    return {
        "traces": int(len(table)),
        "jobs": int(table[["problem", "method", "chunk"]].drop_duplicates().shape[0]),
        "identical": int(len(table) - len(div)),
        "diverging": int(len(div)),
        "first_divergent_iteration_min": (
            int(div["first_divergent_iteration"].min()) if len(div) else None
        ),
        "first_divergent_iteration_median": (
            float(div["first_divergent_iteration"].median()) if len(div) else None
        ),
        "cpu_seconds": round(float(table["cpu_seconds"].sum()), 1),
    }


def format_report(table: pd.DataFrame, summary: Mapping[str, Any], profile: str) -> str:
    """Plain-text report: one line per trace, then the summary."""
    lines = [f"numerics profile: {profile}"]
    for row in table.itertuples():
        where = (
            "identical"
            if pd.isna(row.first_divergent_eval)
            else f"first divergence at iteration {row.first_divergent_iteration} "
            f"(eval {row.first_divergent_eval}), max |dx| {row.max_abs_dx:.3g}, "
            f"max |dy| {row.max_abs_dy:.3g}"
        )
        k = int(getattr(row, "prefix_evaluations", 0) or 0)
        prefix = f"; evaluations 1-{k} are the released prefix it extends" if k else ""
        lines.append(
            f"{row.problem}/{row.method}/{row.chunk} seed {row.seed}: {where} "
            f"[{row.cpu_seconds:.1f} CPU-s{prefix}]"
        )
    lines.append(json.dumps(summary))
    return "\n".join(lines)


def save_rerun(job: ReleaseJob, trace: pd.DataFrame, out_dir: Path) -> Path:
    """Store a re-run job's traces in the release layout (float32) under ``out_dir``."""
    from boexplore.io import atomic_write
    from boexplore.pipeline.release import COMPRESSION, compact

    dst = Path(out_dir) / job.problem / job.method / f"{job.chunk}.parquet"
    dst.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(compact(trace), dst, compression=COMPRESSION)


def overlay_release(release_dir: Path, rerun_dir: Path, out_dir: Path) -> int:
    """``out_dir`` = the release with every re-run trace in place of its committed one.

    Committed traces are symlinked (no copy), each after it was checked against its release
    manifest (the overlay has none of its own); returns how many were replaced.
    """
    from boexplore.pipeline.integrity import check_file

    release_dir, rerun_dir, out_dir = Path(release_dir), Path(rerun_dir), Path(out_dir)
    replaced = 0
    for src in sorted(release_dir.glob("*/*/*.parquet")):
        check_file(src)
        rel = src.relative_to(release_dir)
        dst = out_dir / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if dst.exists() or dst.is_symlink():
            dst.unlink()
        new = rerun_dir / rel
        if new.exists():
            dst.symlink_to(new.resolve())
            replaced += 1
        else:
            dst.symlink_to(src.resolve())
    return replaced


def compare_claims(committed: pd.DataFrame, rebuilt: pd.DataFrame) -> pd.DataFrame:
    """Per claim row: committed vs rebuilt verdict and statistic (``verdict_agrees``)."""
    key = ["claim_id", "variant"]
    cols = [*key, "verdict", "value", "ci_low", "ci_high"]
    a = committed[cols].fillna({"variant": ""})
    b = rebuilt[cols].fillna({"variant": ""})
    out = a.merge(b, on=key, how="outer", suffixes=("_committed", "_rebuilt"))
    out["verdict_agrees"] = out["verdict_committed"] == out["verdict_rebuilt"]
    out["value_abs_diff"] = (out["value_committed"] - out["value_rebuilt"]).abs()
    return out


def compare_parts(committed: pd.DataFrame, rebuilt: pd.DataFrame) -> pd.DataFrame:
    """Per claim part: committed vs rebuilt decision and the counts of units for / against."""
    key = ["claim_id", "variant", "part"]
    cols = [*key, "decision", "k_for", "k_against"]
    a = committed[cols].fillna({"variant": ""})
    b = rebuilt[cols].fillna({"variant": ""})
    out = a.merge(b, on=key, how="outer", suffixes=("_committed", "_rebuilt"))
    order = [*key]
    for col in ("decision", "k_for", "k_against"):
        order += [f"{col}_committed", f"{col}_rebuilt"]
    return out[order]
