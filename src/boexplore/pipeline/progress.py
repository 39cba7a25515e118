"""Workflow progress with an ETA, weighted by the cost model rather than by job counts.

A KG job can cost ~50,000x a Sobol job, so "N of M steps" says little about time left.
Here every compute job carries its predicted CPU time (``cost.workflow_job_costs``):

* at start (Snakemake ``onstart``) :func:`start_run` writes a *plan* — the jobs of this
  invocation with their predicted cost, the start time and the parallelism — to
  ``results/<run>/logs/progress_plan.json`` and returns one line saying what will run and
  roughly how long;
* after each BO job :func:`job_finished` appends a record to the ledger
  ``results/<run>/logs/progress.jsonl`` and returns one line with the cost-weighted
  fraction done and the time left;
* ``boexplore progress`` (:func:`status`) prints the same for a run in another terminal.

"Done" is always read from disk (a job's output exists), so a resumed run counts what it
finished before. Time left blends the prediction with the rate measured so far
(:func:`eta_seconds`). Everything here is best-effort: callers never let it fail a job.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from boexplore.io import atomic_write_text

PLAN_NAME = "progress_plan.json"
LEDGER_NAME = "progress.jsonl"
# Weight of the cost-model prediction in the ETA, as pseudo-time: a share of the predicted
# wall time of this invocation. Once much more time than that has elapsed, the measured
# rate dominates.
PRIOR_SHARE = 0.1


# --- pure functions ---------------------------------------------------------------------------
def cost_fraction(costs: Mapping[str, float], done: Iterable[str]) -> float:
    """Share of the predicted cost of ``costs`` (job -> CPU s) that the ``done`` jobs carry.

    Jobs outside ``costs`` are ignored; an empty plan counts as finished (1.0). Sums use
    ``math.fsum`` (correctly rounded, so independent of the order of the jobs): the fraction is
    exactly 1.0 when every job is done and never decreases as jobs finish.
    """
    total = math.fsum(max(c, 0.0) for c in costs.values())
    if total <= 0.0:
        return 1.0
    got = math.fsum(max(costs[k], 0.0) for k in set(done) if k in costs)
    return min(1.0, got / total)


def wall_model(cal: Mapping[str, Any] | None = None) -> dict[str, float]:
    """(speed, job_overhead_s) of the local wall-time model, from the cost calibration.

    ``speed``: wall seconds one predicted CPU second takes on an idle machine (the cost model's
    coefficients were measured with other work loading the 2-core machine, which inflates CPU
    time per unit of work); ``job_overhead_s``: seconds per Snakemake job that the cost model
    does not see (job dispatch, interpreter start-up, the local aggregation / figure rules).
    Both are fitted on measured whole runs (``python -m boexplore.bench.wall --fit``).
    """
    if cal is None:
        from boexplore.pipeline.cost import load_calibration

        cal = load_calibration()
    w = cal.get("wall", {})
    return {
        "speed": float(w.get("speed", 1.0)),
        "job_overhead_s": float(w.get("job_overhead_s", 0.0)),
    }


def predicted_wall_s(
    costs: Iterable[float],
    cores: int,
    n_other: int = 0,
    model: Mapping[str, float] | None = None,
) -> float:
    """Wall time of independent jobs on ``cores`` cores: (speed x predicted CPU + overhead x
    jobs) shared over the cores, at least the longest single job. ``n_other`` counts the
    DAG's jobs that carry no cost prediction (aggregation, figures); ``model`` defaults to
    :func:`wall_model` (``{"speed": 1, "job_overhead_s": 0}`` gives the raw CPU bound)."""
    costs = [max(c, 0.0) for c in costs]
    if not costs and not n_other:
        return 0.0
    m = wall_model() if model is None else model
    speed, over = float(m["speed"]), float(m["job_overhead_s"])
    work = speed * sum(costs) + over * (len(costs) + max(int(n_other), 0))
    return max(work / max(int(cores), 1), speed * max(costs, default=0.0) + over)


def eta_seconds(
    remaining_cost: float,
    session_done_cost: float,
    elapsed_s: float,
    prior_rate: float,
    prior_time_s: float,
) -> float:
    """Seconds left: remaining predicted CPU over a rate (predicted CPU s per wall s) that
    blends the prior rate (weight ``prior_time_s`` of pseudo-time) with the measured one
    (``session_done_cost`` over ``elapsed_s``). At start this is the cost model's answer."""
    if remaining_cost <= 0.0:
        return 0.0
    t0 = max(prior_time_s, 1e-9)
    rate = (max(prior_rate, 0.0) * t0 + max(session_done_cost, 0.0)) / (t0 + max(elapsed_s, 0.0))
    return remaining_cost / max(rate, 1e-12)


def format_duration(seconds: float) -> str:
    """Unambiguous short duration: ``34 s``, ``41 min``, ``1 h 09 min``, ``2 d 03 h``."""
    if seconds != seconds or seconds == float("inf"):
        return "?"
    s = int(round(max(seconds, 0.0)))
    if s < 60:
        return f"{s} s"
    m = int(round(s / 60.0))
    if m < 60:
        return f"{m} min"
    h, m = divmod(m, 60)
    if h < 24:
        return f"{h} h {m:02d} min"
    d, h = divmod(h, 24)
    return f"{d} d {h:02d} h"


def format_cpu(seconds: float) -> str:
    """CPU time in the unit that reads best: ``12 CPU-s``, ``7.5 CPU-min``, ``3.40 CPU-h``."""
    if seconds < 60:
        return f"{seconds:.0f} CPU-s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} CPU-min"
    hours = seconds / 3600
    return f"{hours:.0f} CPU-h" if hours >= 100 else f"{hours:.2f} CPU-h"


def job_id(rule: str, key: str) -> str:
    """Plan key of a job: ``<rule>:<key>`` with the key of ``cost.JobCost``."""
    return f"{rule}:{key}"


def job_output(results_dir: str | Path, rule: str, key: str) -> Path:
    """The output file whose existence marks a compute job done (paths of the workflow rules)."""
    root = Path(results_dir)
    if rule in ("bo_run", "restore_run"):
        return root / "runs" / f"{key}.parquet"
    if rule == "score_run":
        return root / "metrics" / f"{key}.parquet"
    if rule == "p2_e2":
        return root / "parametric" / "e2" / f"{key}_bounds.parquet"
    if rule == "p2_e3_static":
        return root / "parametric" / "e3" / "static.parquet"
    if rule == "p2_e3_dynamic":
        return root / "parametric" / "e3" / "dynamic" / f"{key}.parquet"
    if rule.startswith("p2_"):
        return root / "parametric" / rule[3:] / f"{key}.parquet"
    raise ValueError(f"no output known for rule {rule!r}")


# --- plan ----------------------------------------------------------------------------------
def results_dir_of(config: Mapping[str, Any]) -> Path:
    """``results/<run_name>`` (relative to the working directory, like the workflow)."""
    return Path("results") / str(config["run_name"])


def predicted_costs(config: Mapping[str, Any]) -> dict[str, float]:
    """Predicted CPU seconds of every compute job of a validated config, by :func:`job_id`."""
    from boexplore.pipeline.cost import workflow_job_costs

    costs = {job_id(j.rule, j.key): j.cpu_s for j in workflow_job_costs(config)}
    return relabel_restored(costs, (config.get("release") or {}).get("traces"), config)


#: CPU seconds of one ``restore_run`` job (read a compact trace, write it back as float64).
RESTORE_CPU_S = 1.5


def _held_by_seed(root: Path, key: str, config: Mapping[str, Any]) -> bool:
    """Whether the release holds every seed of job ``key`` (``problem/method/chunk``) at the
    full budget in files grouped otherwise (the workflow restores it from them)."""
    from boexplore.pipeline.release import complete_seed_files, restore_roots
    from boexplore.workflow_config import all_seeds, parse_chunk_label, problem_design

    roots = restore_roots(config.get("release") or {}) or (root,)
    problem, method, chunk = key.split("/")
    if problem not in config.get("problems", {}):
        return False
    seeds = parse_chunk_label(chunk, all_seeds(config))
    budget = problem_design(config, problem)[1]
    return complete_seed_files(roots, problem, method, seeds, budget) is not None


def relabel_restored(
    costs: Mapping[str, float],
    release_traces: str | None,
    config: Mapping[str, Any] | None = None,
) -> dict[str, float]:
    """BO jobs whose full trace the data release holds run as ``restore_run`` (ruleorder in
    ``workflow/rules/release.smk``): relabel them with the cost of a restore. With ``config``,
    a released trace shorter than its budget stays a ``bo_run`` (it is extended)."""
    from boexplore.pipeline.release import released_evaluations
    from boexplore.workflow_config import problem_design

    out = dict(costs)
    if not release_traces:
        return out
    root = Path(release_traces)
    for jid in [k for k in costs if k.startswith("bo_run:")]:
        key = jid.split(":", 1)[1]
        path = root / f"{key}.parquet"
        if not path.exists():
            if config is None or not _held_by_seed(root, key, config):
                continue
        elif config is not None:
            n = released_evaluations(path)
            if n is not None and n < problem_design(config, key.split("/")[0])[1]:
                continue  # extended by bo_run
        del out[jid]
        out[job_id("restore_run", key)] = RESTORE_CPU_S
    return out


def done_on_disk(results_dir: str | Path, ids: Iterable[str]) -> set[str]:
    """The jobs among ``ids`` whose output file exists."""
    out = set()
    for jid in ids:
        rule, key = jid.split(":", 1)
        if job_output(results_dir, rule, key).exists():
            out.add(jid)
    return out


def make_plan(
    costs: Mapping[str, float],
    done: Iterable[str],
    cores: int,
    run: str,
    targets: Iterable[str] | None = None,
    started: float | None = None,
    n_other: int = 0,
    model: Mapping[str, float] | None = None,
    speed: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The plan of one invocation: its scope (jobs done already + jobs it will run, or every
    job when ``targets`` is None), their costs, the start time and the parallelism.
    ``speed`` (``cost.cpu_speed.plan_speed``) scales the wall time to the CPU it runs on;
    without it the plan line speaks of the machine the wall model was fitted on."""
    done = set(done) & set(costs)
    to_run = set(costs) - done if targets is None else (set(targets) & set(costs)) - done
    scope = done | to_run
    return {
        "run": run,
        "started": time.time() if started is None else started,
        "cores": max(int(cores), 1),
        "costs": {k: float(costs[k]) for k in sorted(scope)},
        "done_at_start": sorted(done),
        "n_other": max(int(n_other), 0),
        "wall_model": dict(wall_model() if model is None else model),
        **({"speed": dict(speed)} if speed is not None else {}),
    }


def plan_summary(plan: Mapping[str, Any]) -> dict[str, Any]:
    """Per-rule jobs to run and CPU s, total CPU s to run and the predicted wall time."""
    costs, done = plan["costs"], set(plan["done_at_start"])
    per_rule: dict[str, list[float]] = {}
    for jid, c in costs.items():
        if jid not in done:
            per_rule.setdefault(jid.split(":", 1)[0], []).append(c)
    todo = [c for cs in per_rule.values() for c in cs]
    wall = predicted_wall_s(todo, plan["cores"], plan.get("n_other", 0), plan.get("wall_model"))
    speed = plan.get("speed")
    low, high = (float(speed["low"]), float(speed["high"])) if speed else (1.0, 1.0)
    return {
        "per_rule": {r: (len(cs), sum(cs)) for r, cs in per_rule.items()},
        "to_run_cpu_s": sum(todo),
        "wall_s": wall * math.sqrt(low * high),
        "wall_range_s": (wall * low, wall * high),
        "n_done": len(done),
    }


def _jobs(n: int) -> str:
    return f"{n} job" if n == 1 else f"{n} jobs"


def format_wall(plan: Mapping[str, Any], summary: Mapping[str, Any]) -> str:
    """``~34 min wall at 2 cores on an idle AMD EPYC (family 25 model 1), calibrated on it``;
    on a CPU that no measurement calibrates, the range over the CPU families measured."""
    speed = plan.get("speed")
    at = f"at {plan['cores']} cores on an idle"
    if not speed:
        return f"~{format_duration(summary['wall_s'])} wall {at} machine"
    if speed["calibrated"]:
        return f"~{format_duration(summary['wall_s'])} wall {at} {speed['cpu']}, calibrated on it"
    low, high = (format_duration(s) for s in summary["wall_range_s"])
    n = int(speed["families"])
    over = f"range over the {n} CPU {'family' if n == 1 else 'families'} measured"
    return (
        f"~{low if low == high else f'{low}-{high}'} wall {at} machine "
        f"(this CPU not calibrated: {speed['cpu']}; {over if n else 'no CPU measured'})"
    )


def format_plan_line(plan: Mapping[str, Any]) -> str:
    """``[progress] plan: bo_run 448 jobs 3.10 CPU-h, ...; predicted 3.40 CPU-h, ~1 h 42 min wall``"""
    s = plan_summary(plan)
    if not s["per_rule"]:
        return f"[progress] plan: nothing to run ({s['n_done']} compute jobs done already)"
    from boexplore.pipeline.cost import STAGE_ORDER

    order = sorted(s["per_rule"], key=lambda r: (STAGE_ORDER + (r,)).index(r))
    parts = [f"{r} {_jobs(s['per_rule'][r][0])} {format_cpu(s['per_rule'][r][1])}" for r in order]
    done = f" ({s['n_done']} done already)" if s["n_done"] else ""
    return (
        f"[progress] plan{done}: {', '.join(parts)}; predicted {format_cpu(s['to_run_cpu_s'])} "
        f"(cost model), {format_wall(plan, s)}"
    )


def progress_state(
    plan: Mapping[str, Any],
    done: Iterable[str],
    now: float | None = None,
    summary: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Fraction done, BO jobs done / in scope, elapsed and time left of a plan given the
    jobs done now (``summary``: a cached ``plan_summary(plan)``)."""
    costs = plan["costs"]
    done = set(done) & set(costs)
    at_start = set(plan["done_at_start"])
    s = summary or plan_summary(plan)
    elapsed = max((time.time() if now is None else now) - float(plan["started"]), 0.0)
    remaining = sum(costs[k] for k in set(costs) - done)
    session = sum(costs[k] for k in done - at_start)
    wall = s["wall_s"]
    prior_rate = s["to_run_cpu_s"] / wall if wall > 0 else 1.0
    bo = [k for k in costs if k.startswith("bo_run:")]
    return {
        "fraction": cost_fraction(costs, done),
        "bo_done": sum(k in done for k in bo),
        "bo_total": len(bo),
        "elapsed_s": elapsed,
        "left_s": eta_seconds(remaining, session, elapsed, prior_rate, PRIOR_SHARE * wall),
    }


def format_progress_line(state: Mapping[str, Any]) -> str:
    """``[progress] 37.2 % of predicted CPU done (bo_run 120/448), elapsed 41 min, ~1 h 09 min left``"""
    return (
        f"[progress] {100 * state['fraction']:.1f} % of predicted CPU done "
        f"(bo_run {state['bo_done']}/{state['bo_total']}), elapsed "
        f"{format_duration(state['elapsed_s'])}, ~{format_duration(state['left_s'])} left"
    )


# --- files ---------------------------------------------------------------------------------
def append_ledger(path: str | Path, record: Mapping[str, Any]) -> None:
    """Append one JSON line with a single ``O_APPEND`` write (concurrent jobs do not interleave
    on a local file system)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(dict(record), sort_keys=True) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def read_ledger(path: str | Path) -> list[dict[str, Any]]:
    """Records of a ledger (a torn last line is skipped)."""
    path = Path(path)
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def write_plan(results_dir: str | Path, plan: Mapping[str, Any]) -> Path:
    """Write the plan atomically next to the ledger."""
    path = Path(results_dir) / "logs" / PLAN_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(json.dumps(dict(plan)), path)


def read_plan(results_dir: str | Path) -> dict[str, Any] | None:
    """The plan of the latest invocation, or None."""
    path = Path(results_dir) / "logs" / PLAN_NAME
    return json.loads(path.read_text()) if path.exists() else None


# --- hooks ---------------------------------------------------------------------------------
def start_run(
    config: Mapping[str, Any],
    cores: int,
    target_outputs: Iterable[str] | None = None,
    results_dir: str | Path | None = None,
    n_other: int = 0,
) -> tuple[dict[str, Any], str]:
    """Start of an invocation: write its plan, log a start record; return (plan, plan line).

    ``target_outputs`` are the output files of the jobs the DAG will run (None: every job of
    the config that is not done on disk).
    """
    results_dir = Path(results_dir or results_dir_of(config))
    costs = predicted_costs(config)
    done = done_on_disk(results_dir, costs)
    targets = None
    if target_outputs is not None:
        outputs = list(map(os.path.normpath, target_outputs))
        by_output = output_index(results_dir, costs)
        costs.update(regrouped_bo_costs(config, results_dir, outputs, by_output))
        by_output = output_index(results_dir, costs)
        targets = [by_output[p] for p in outputs if p in by_output]
        done = done_on_disk(results_dir, costs)
    from boexplore.cost.cpu_speed import plan_speed, this_cpu
    from boexplore.pipeline.cost import config_calibration

    model = wall_model(config_calibration(config))
    speed = plan_speed(this_cpu())
    plan = make_plan(
        costs, done, cores, str(config["run_name"]), targets, None, n_other, model, speed
    )
    write_plan(results_dir, plan)
    s = plan_summary(plan)
    append_ledger(
        results_dir / "logs" / LEDGER_NAME,
        {
            "event": "start",
            "time": plan["started"],
            "cores": plan["cores"],
            "to_run": sum(n for n, _ in s["per_rule"].values()),
            "predicted_cpu_s": s["to_run_cpu_s"],
            "predicted_wall_s": s["wall_s"],
            "cpu": speed["cpu"],
            "n_jobs": sum(n for n, _ in s["per_rule"].values()) + plan["n_other"],
        },
    )
    return plan, format_plan_line(plan)


def regrouped_bo_costs(
    config: Mapping[str, Any],
    results_dir: str | Path,
    outputs: Iterable[str],
    known: Mapping[str, str],
) -> dict[str, float]:
    """Predicted CPU of BO run files asked for by path whose seed grouping is not the config's
    (``runs/<p>/<m>/seed3.parquet`` when the config groups seeds 0-3): costed from their own
    seeds, so a plan over such targets is not empty."""
    from boexplore.pipeline.cost import bo_job_cost, config_calibration, released_start
    from boexplore.workflow_config import all_seeds, parse_chunk_label

    root = os.path.normpath(Path(results_dir) / "runs")
    cal, out = None, {}
    for path in outputs:
        rel = os.path.relpath(path, root)
        parts = Path(rel).parts
        if path in known or rel.startswith("..") or len(parts) != 3 or not rel.endswith(".parquet"):
            continue
        problem, method, chunk = parts[0], parts[1], parts[2][: -len(".parquet")]
        seeds = parse_chunk_label(chunk, all_seeds(config))
        if not seeds or problem not in config["problems"] or method not in config["methods"]:
            continue
        cal = cal or config_calibration(config)
        start = released_start(config, problem, method, seeds)
        job = bo_job_cost(config, problem, method, len(seeds), cal, start)
        out[job_id("bo_run", f"{problem}/{method}/{chunk}")] = job.cpu_s
    return relabel_restored(out, (config.get("release") or {}).get("traces"), config)


def output_index(results_dir: str | Path, ids: Iterable[str]) -> dict[str, str]:
    """Normalised output path -> plan job id."""
    return {os.path.normpath(job_output(results_dir, *jid.split(":", 1))): jid for jid in ids}


class Tracker:
    """Jobs done so far in one invocation (kept in memory: no file-system scan per job)."""

    def __init__(self, plan: Mapping[str, Any], results_dir: str | Path) -> None:
        self.plan = plan
        self.ledger = Path(results_dir) / "logs" / LEDGER_NAME
        self.done = set(plan["done_at_start"])
        self.summary = plan_summary(plan)

    def finished(self, jid: str, now: float | None = None) -> str | None:
        """Record a finished compute job; the progress line when it is a BO job."""
        now = time.time() if now is None else now
        if jid not in self.plan["costs"]:
            return None
        self.done.add(jid)
        rule, key = jid.split(":", 1)
        append_ledger(self.ledger, {"event": "done", "time": now, "rule": rule, "key": key})
        if rule != "bo_run":
            return None
        return format_progress_line(progress_state(self.plan, self.done, now, self.summary))


def status(config: Mapping[str, Any], results_dir: str | Path | None = None) -> str:
    """Status text for ``boexplore progress``: the latest plan, fraction done and time left;
    without a plan, the fraction of the whole config done on disk."""
    results_dir = Path(results_dir or results_dir_of(config))
    plan = read_plan(results_dir)
    if plan is None:
        costs = predicted_costs(config)
        done = done_on_disk(results_dir, costs)
        bo = [k for k in costs if k.startswith("bo_run:")]
        return (
            f"[progress] no run started under {results_dir} yet: "
            f"{100 * cost_fraction(costs, done):.1f} % of predicted CPU done on disk "
            f"(bo_run {sum(k in done for k in bo)}/{len(bo)})"
        )
    state = progress_state(plan, done_on_disk(results_dir, plan["costs"]))
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(plan["started"]))
    lines = [f"run {plan['run']} started {started}", format_plan_line(plan)]
    if state["fraction"] >= 1.0 - 1e-9:
        lines.append(
            "[progress] 100.0 % of predicted CPU done "
            f"(bo_run {state['bo_done']}/{state['bo_total']}): finished"
        )
    else:
        lines.append(format_progress_line(state))
    done = [r for r in read_ledger(results_dir / "logs" / LEDGER_NAME) if r.get("event") == "done"]
    if done:
        last = done[-1]
        ago = format_duration(time.time() - float(last["time"]))
        lines.append(f"last finished: {last['rule']}:{last['key']} ({ago} ago)")
    return "\n".join(lines)


# --- Snakemake glue (main process only; never fails the workflow) ---------------------------
class JobFinishedHandler(logging.Handler):
    """Listens to Snakemake's own log records: on "Finished jobid" of a planned job it updates
    the tracker and logs the progress line, so the line appears in the terminal (and the
    Snakemake log) of the main process for local and SLURM runs alike, and no job script
    changes (a changed script would make Snakemake rerun every finished job)."""

    def __init__(self, tracker: Tracker, jobids: Mapping[int, str], out: logging.Logger) -> None:
        super().__init__(logging.INFO)
        self.tracker, self.jobids, self.out = tracker, dict(jobids), out

    def emit(self, record: logging.LogRecord) -> None:
        if str(getattr(record, "event", "")) != "job_finished":
            return
        try:
            jid = self.jobids.get(getattr(record, "job_id", None))
            line = self.tracker.finished(jid) if jid else None
        except Exception as err:  # progress must never stop a run
            line = f"[progress] unavailable ({type(err).__name__}: {err})"
        if line:
            self.out.info(line)


def onstart_hook(workflow: Any, config: Mapping[str, Any]) -> None:
    """Snakemake ``onstart``: log the plan of the DAG's jobs as one line and follow the jobs
    as they finish. Snakemake calls it only in real runs of the main process (not ``-n``)."""
    try:
        from snakemake.logging import logger
    except ImportError:  # pragma: no cover - outside Snakemake
        logger = logging.getLogger("boexplore.pipeline")
    try:
        cores = workflow.cores if workflow.local_exec else workflow.nodes
        jobs = list(workflow.dag.needrun_jobs())
        results_dir = results_dir_of(config)
        outputs = [str(f) for j in jobs for f in j.output]
        costs = predicted_costs(config)
        known = output_index(results_dir, costs)
        norm = [os.path.normpath(f) for f in outputs]
        costs.update(regrouped_bo_costs(config, results_dir, norm, known))
        costs_index = output_index(results_dir, costs)
        n_other = sum(
            not any(os.path.normpath(str(f)) in costs_index for f in j.output) for j in jobs
        )
        plan, line = start_run(config, int(cores or 1), outputs, n_other=n_other)
        by_output = output_index(results_dir, plan["costs"])
        jobids = {}
        for job in jobs:
            for f in job.output:
                jid = by_output.get(os.path.normpath(str(f)))
                if jid is not None:
                    jobids[job.jobid] = jid
        logger.addHandler(JobFinishedHandler(Tracker(plan, results_dir), jobids, logger))
    except Exception as err:  # progress must never stop a run
        line = f"[progress] no plan ({type(err).__name__}: {err})"
    logger.info(line)
