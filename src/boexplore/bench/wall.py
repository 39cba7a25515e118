"""Measure a command's wall and CPU time and record it where the docs read it.

Every time the README and the documentation state (how long the default run, the smoke run or
the test suite takes) is rendered from ``data/timings/<name>.json``, which this module writes:

    python -m boexplore.bench.wall --name default -- snakemake --cores 2
    python -m boexplore.bench.wall --name smoke -- snakemake --cores 2 --configfile config/smoke.yaml
    python -m boexplore.bench.wall --name tests -- pytest -n auto -q
    python -m boexplore.bench.wall --fit data/timings/default.json data/timings/smoke.json
    python -m boexplore.bench.wall --cpu-table

It runs the command, measures wall time (monotonic clock) and the CPU time of every process
the command waited for (``RUSAGE_CHILDREN``), records the CPU it ran on (vendor, family,
model, AVX-512), and for a workflow reads the plan line's prediction from the run's progress
ledger (``results/<run>/logs/progress.jsonl``), so the record says how far the cost model's
wall-time estimate was from the measurement. ``--cpu-table`` writes the plan line's per-CPU
speed factors (``cost/cpu_speed.json``) from the idle default-workflow records. The
machine's load at the start is recorded too: a measurement on a busy machine is slower than
what a user sees. Then ``python -m boexplore.reporting.results_text`` puts the numbers in the
text. For a fair workflow measurement start from nothing (a fresh clone, or ``rm -rf
results/<run>``); Snakemake skips finished jobs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from boexplore.cost.cpu_speed import TABLE, Cpu, SpeedRow, this_cpu, write_table

TIMINGS = Path("data/timings")


def children_cpu_s() -> float:
    """User + system CPU seconds of all waited-for child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_name(command: Sequence[str]) -> str | None:
    """The ``run_name`` of a Snakemake command's config (``--configfile``, else the default)."""
    if not command or Path(command[0]).name != "snakemake":
        return None
    import yaml

    cfg = "config/config.yaml"
    for i, arg in enumerate(command):
        if arg == "--configfile" and i + 1 < len(command):
            cfg = command[i + 1]
        elif arg.startswith("--configfile="):
            cfg = arg.split("=", 1)[1]
    try:
        return str(yaml.safe_load(Path(cfg).read_text())["run_name"])
    except (OSError, KeyError, TypeError):
        return None


def plan_prediction(results_dir: Path, since: float) -> dict[str, float] | None:
    """The first plan (``start`` record) the workflow wrote at or after ``since``."""
    from boexplore.pipeline.progress import LEDGER_NAME, read_ledger

    for rec in read_ledger(results_dir / "logs" / LEDGER_NAME):
        if rec.get("event") == "start" and float(rec.get("time", 0)) >= since - 1:
            keys = ("predicted_cpu_s", "predicted_wall_s", "n_jobs")
            return {k: float(rec[k]) for k in keys if k in rec}
    return None


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def measure(command: Sequence[str], name: str) -> dict[str, Any]:
    """Run ``command`` and return the measurement record (raises if the command fails)."""
    load = os.getloadavg()[0]
    started = time.time()
    cpu0, t0 = children_cpu_s(), time.monotonic()
    rc = subprocess.run(list(command)).returncode
    wall, cpu = time.monotonic() - t0, children_cpu_s() - cpu0
    if rc != 0:
        raise SystemExit(f"{shlex.join(command)} failed (rc {rc}); nothing recorded")
    record: dict[str, Any] = {
        "name": name,
        "command": shlex.join(command),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "cores": os.cpu_count(),
        "load_before": round(load, 2),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "cpu": this_cpu().to_dict(),
    }
    run = run_name(command)
    if run:
        plan = plan_prediction(Path("results") / run, started)
        if plan:
            record["n_jobs"] = int(plan.pop("n_jobs", 0)) or None
            record["plan"] = plan
    return record


def configfile_of(command: str) -> str:
    """The ``--configfile`` of a recorded Snakemake command (default ``config/config.yaml``)."""
    parts = shlex.split(command)
    for i, arg in enumerate(parts):
        if arg == "--configfile" and i + 1 < len(parts):
            return parts[i + 1]
    return "config/config.yaml"


def predicted_now_s(rec: dict[str, Any], repo: Path = Path(".")) -> float | None:
    """The wall time today's plan line (without a CPU factor) predicts for a recorded fresh
    workflow run (None for a command that is not a workflow or a record without ``n_jobs``)."""
    from boexplore.pipeline.progress import predicted_costs, predicted_wall_s
    from boexplore.workflow_config import load_config

    if not rec.get("n_jobs") or not str(rec["command"]).startswith("snakemake"):
        return None
    costs = list(predicted_costs(load_config(repo / configfile_of(rec["command"]))).values())
    return predicted_wall_s(costs, rec["cores"], rec["n_jobs"] - len(costs))


DEFAULT_CONFIG = "config/config.yaml"


def cpu_table(repo: Path = Path("."), timings: Path = TIMINGS) -> list[SpeedRow]:
    """One speed row per CPU of the idle default-workflow records (``snakemake --cores N`` on
    ``config/config.yaml``, load < 1 at start, CPU recorded), sorted by factor."""
    rows = []
    for path in sorted((repo / timings).glob("*.json")):
        rec = json.loads(path.read_text())
        command = str(rec.get("command", ""))
        if not command.startswith("snakemake") or configfile_of(command) != DEFAULT_CONFIG:
            continue
        predicted = predicted_now_s(rec, repo)
        if rec.get("cpu") is None or rec.get("load_before", 99) >= 1.0 or not predicted:
            continue
        rows.append(
            SpeedRow(
                cpu=Cpu.from_dict(rec["cpu"]),
                measured_wall_s=float(rec["wall_s"]),
                predicted_wall_s=round(predicted, 1),
                cores=int(rec["cores"]),
                timing=f"{timings.as_posix()}/{path.name}",
                source=str(rec.get("source", "")),
            )
        )
    return sorted(rows, key=lambda r: r.factor)


def fit_wall_model(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Least-squares (speed, job_overhead_s) of the plan line's wall model on measured
    workflow runs: wall x cores = speed x (predicted CPU, current coefficients) + overhead x
    jobs. Each record needs ``n_jobs`` (the DAG's jobs) and a Snakemake command."""
    import numpy as np

    from boexplore.pipeline.cost import config_calibration, workflow_job_costs
    from boexplore.workflow_config import load_config

    rows, rhs = [], []
    for rec in records:
        config = load_config(configfile_of(rec["command"]))
        cpu = sum(j.cpu_s for j in workflow_job_costs(config, config_calibration(config)))
        scale = 1.0 / (rec["wall_s"] * rec["cores"])  # relative error: each run counts alike
        rows.append([cpu * scale, rec["n_jobs"] * scale])
        rhs.append(1.0)
    (speed, over), *_ = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)
    return {"speed": round(float(speed), 3), "job_overhead_s": round(float(over), 2)}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fit", nargs="+", type=Path, metavar="RECORD",
                    help="fit the wall model on workflow records instead of measuring")  # fmt: skip
    ap.add_argument("--cpu-table", action="store_true",
                    help=f"write the per-CPU speed factors ({TABLE.name}) from the records")  # fmt: skip
    ap.add_argument("--name", help="record name: data/timings/<name>.json")
    ap.add_argument("--out-dir", type=Path, default=TIMINGS)
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = ap.parse_args(argv)
    if args.fit:
        records = [json.loads(p.read_text()) for p in args.fit]
        print(json.dumps({"wall": fit_wall_model(records)}, indent=1))
        return 0
    if args.cpu_table:
        rows = cpu_table(timings=args.out_dir)
        for r in rows:
            print(f"[wall] {r.cpu.label()}: measured {r.measured_wall_s:.0f} s, predicted "
                  f"{r.predicted_wall_s:.0f} s, factor {r.factor:.2f} ({r.timing})")  # fmt: skip
        print(f"-> {write_table(rows)}")
        return 0
    if not args.name:
        ap.error("--name is required to measure")
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("give the command to measure after --")
    record = measure(command, args.name)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"{args.name}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    plan = record.get("plan", {}).get("predicted_wall_s")
    ratio = f"; plan line predicted {plan / record['wall_s']:.2f}x the wall time" if plan else ""
    print(f"[wall] {args.name}: {record['wall_s']:.0f} s wall, {record['cpu_s']:.0f} CPU-s "
          f"(load {record['load_before']:.1f} at start){ratio} -> {path}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
