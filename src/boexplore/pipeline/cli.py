"""``boexplore estimate``: what a config costs (CPU-hours, memory, longest job) before running it;
``boexplore progress``: how far a running (or finished) workflow is, weighted by that cost."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``estimate`` command."""
    p = sub.add_parser(
        "estimate",
        help="predict CPU-hours, peak memory and the longest job of a workflow config",
        description=(
            "Per-stage and total CPU-hours, peak memory and the longest job of every job the "
            "config asks for, from the cost model that also sizes the SLURM requests. "
            "--compare RESULTS_DIR sets predictions against a finished run's benchmark files; "
            "--calibrate RESULTS_DIR --out FILE refits the model on them."
        ),
    )
    p.add_argument("--configfile", required=True, type=Path, help="workflow config (YAML)")
    p.add_argument("--calibration", type=Path, help="cost-model JSON (default: the shipped one)")
    p.add_argument("--jobs", action="store_true", help="also list every job (TSV)")
    p.add_argument("--compare", type=Path, metavar="RESULTS_DIR", help="e.g. results/default")
    p.add_argument("--calibrate", type=Path, metavar="RESULTS_DIR", help="refit on a finished run")
    p.add_argument("--timing-tables", type=Path, help="add docs/bo_timings.md to the refit")
    p.add_argument("--out", type=Path, help="where --calibrate writes the JSON")
    p.set_defaults(func=_estimate)

    p = sub.add_parser(
        "progress",
        help="cost-weighted fraction done and time left of a workflow run",
        description=(
            "Reads the plan the workflow wrote at start (results/<run>/logs/progress_plan.json), "
            "the ledger of finished BO jobs (progress.jsonl) and the outputs on disk, and prints "
            "what the run does, the share of its predicted CPU time done and an estimate of the "
            "time left (cost model blended with the rate measured so far). Run it from the "
            "workflow's working directory, e.g. in a second terminal."
        ),
    )
    p.add_argument("--configfile", required=True, type=Path, help="workflow config (YAML)")
    p.add_argument("--results-dir", type=Path, help="default: results/<run_name>")
    p.add_argument(
        "--watch", type=float, metavar="SECONDS", help="repeat every SECONDS until interrupted"
    )
    p.set_defaults(func=_progress)


def _estimate(args: argparse.Namespace) -> int:
    from boexplore.pipeline import cost
    from boexplore.workflow_config import load_config

    config = load_config(args.configfile)
    if args.calibration:
        config.setdefault("resources", {})["calibration"] = str(args.calibration)
    if args.calibrate:
        tables = args.timing_tables.read_text() if args.timing_tables else None
        cal = cost.calibrate(config, args.calibrate, timing_tables=tables)
        text = json.dumps(cal, indent=1) + "\n"
        if args.out:
            args.out.write_text(text)
            print(f"wrote {args.out}")
        else:
            print(text, end="")
        return 0
    cal = cost.config_calibration(config)
    jobs = cost.workflow_job_costs(config, cal)
    print(f"config {args.configfile} (run {config['run_name']}): {len(jobs)} compute jobs")
    print(cost.format_summary(cost.summarize(jobs, config), config))
    if args.jobs:
        print("\nrule\tjob\tcpu_s\tmem_mb\truntime_request_min\tmem_request_mb\tsegments")
        for j in jobs:
            print(
                f"{j.rule}\t{j.key}\t{j.cpu_s:.1f}\t{j.mem_mb:.0f}\t"
                f"{cost.runtime_request_min(j, config)}\t{cost.mem_request_mb(j, config)}\t"
                f"{cost.segments_needed(j, config)}"
            )
    if args.compare:
        _, summary = cost.compare(config, args.compare, cal)
        if not summary:
            print(f"\nno benchmark files of this config under {args.compare}/benchmarks")
            return 1
        print(f"\npredicted vs measured CPU time ({args.compare}):")
        print(cost.format_compare(summary))
    return 0


def _progress(args: argparse.Namespace) -> int:
    import time

    from boexplore.pipeline import progress
    from boexplore.workflow_config import load_config

    config = load_config(args.configfile)
    while True:
        print(progress.status(config, args.results_dir), flush=True)
        if not args.watch:
            return 0
        try:
            time.sleep(args.watch)
        except KeyboardInterrupt:
            return 0
        print()
