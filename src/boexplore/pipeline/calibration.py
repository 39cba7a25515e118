"""Calibrating the cost model on a finished run, and its predictions against measured jobs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from boexplore.bo.methods import parse_method
from boexplore.cost.calibration import MODEL_FREE, REF_RAW, REF_RESTARTS, config_calibration
from boexplore.cost.cpu import batch_factor
from boexplore.cost.fit import _linear_fit, fit_iteration_model, parse_timing_tables
from boexplore.pipeline.job_costs import (
    STAGE_ORDER,
    parametric_units,
    score_units,
    workflow_job_costs,
)
from boexplore.workflow_config import all_seeds, method_bo_settings, parse_chunk_label


def iterations_from_traces(
    trace_files: Iterable[str | Path],
    config: Mapping[str, Any],
    cpu_per_wall: Mapping[str, float] | None = None,
) -> list[dict[str, Any]]:
    """Measured iterations of workflow traces: (method base, n before the step, d, fit, acq).

    Trace times are wall-clock; ``cpu_per_wall`` (file -> CPU / wall time of its job) turns
    them into CPU seconds on a machine whose cores were shared.
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for file in trace_files:
        share = float((cpu_per_wall or {}).get(str(file), 1.0))
        trace = pd.read_parquet(
            file,
            columns=[
                "method",
                "dim",
                "seed",
                "iteration",
                "fit_seconds",
                "acq_seconds",
                "fallback",
            ],
        )
        for (method, _seed), g in trace.groupby(["method", "seed"], sort=False):
            spec = parse_method(config["methods"][method])
            if spec.base in MODEL_FREE:
                continue
            bo = method_bo_settings(config, method)
            g = g.reset_index(drop=True)  # index = points observed before each evaluation
            for _, step in g[g["iteration"] > 0].groupby("iteration", sort=True):
                flags = step["fallback"].astype(str)
                if not flags.isin(["", "None", "nan"]).all():
                    continue  # the time guard fired: a lower bound only
                rows.append(
                    {
                        "method": spec.base,
                        "n": int(step.index.min()),
                        "d": int(g["dim"].iloc[0]),
                        "fit_s": share * float(step["fit_seconds"].iloc[0]),
                        "acq_s": share * float(step["acq_seconds"].iloc[0]) / batch_factor(spec.q),
                        "restarts": int(bo.get("num_restarts", REF_RESTARTS)),
                        "raw": int(bo.get("raw_samples", REF_RAW)),
                        "q": 1,
                        "fantasies": int(spec.params.get("fantasies", 64)),
                    }
                )
    return rows


# --- measured jobs (Snakemake `benchmark:` files) -----------------------------------------------
BENCH_RULES = STAGE_ORDER


def read_benchmarks(results_dir: str | Path) -> list[dict[str, Any]]:
    """Every benchmark file under ``<results_dir>/benchmarks/<rule>/<key>.tsv`` as a row
    (rule, key, cpu_s, wall_s, max_rss_mb); the key matches ``JobCost.key``."""
    import pandas as pd

    root = Path(results_dir) / "benchmarks"
    rows = []
    for rule in BENCH_RULES:
        for file in sorted((root / rule).rglob("*.tsv")):
            table = pd.read_csv(file, sep="\t")
            if table.empty:
                continue
            last = table.iloc[-1]
            rss = pd.to_numeric(last.get("max_rss"), errors="coerce")
            rows.append(
                {
                    "rule": rule,
                    "key": str(file.relative_to(root / rule).with_suffix("")),
                    "cpu_s": float(last["cpu_time"]),
                    "wall_s": float(last["s"]),
                    "max_rss_mb": float(rss) if rss == rss else float("nan"),
                }
            )
    return rows


def compare(
    config: Mapping[str, Any], results_dir: str | Path, cal=None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Predicted vs measured CPU time per job, and a per-rule summary (ratio = measured/predicted)."""
    import numpy as np

    predicted = {(j.rule, j.key): j for j in workflow_job_costs(config, cal)}
    jobs = []
    for row in read_benchmarks(results_dir):
        job = predicted.get((row["rule"], row["key"]))
        if job is None:
            continue
        jobs.append(
            {
                **row,
                "pred_cpu_s": job.cpu_s,
                "pred_mem_mb": job.mem_mb,
                "ratio": max(row["cpu_s"], 1e-3) / max(job.cpu_s, 1e-3),
            }
        )
    summary = []
    for rule in [*BENCH_RULES, "all"]:
        sel = [j for j in jobs if rule == "all" or j["rule"] == rule]
        if not sel:
            continue
        ratio = np.array([j["ratio"] for j in sel])
        summary.append(
            {
                "rule": rule,
                "jobs": len(sel),
                "measured_cpu_h": sum(j["cpu_s"] for j in sel) / 3600,
                "predicted_cpu_h": sum(j["pred_cpu_s"] for j in sel) / 3600,
                "median_ratio": float(np.median(ratio)),
                "within_2x": float(np.mean((ratio >= 0.5) & (ratio <= 2.0))),
                "max_rss_mb": max(j["max_rss_mb"] for j in sel),
                "pred_peak_mb": max(j["pred_mem_mb"] for j in sel),
            }
        )
    return jobs, summary


def format_compare(summary: list[dict[str, Any]]) -> str:
    """Plain-text table of ``compare`` summaries."""
    head = (
        f"{'rule':<14} {'jobs':>5} {'measured CPU-h':>15} {'predicted CPU-h':>16} "
        f"{'median meas/pred':>17} {'within 2x':>10} {'max RSS MB':>11} {'pred. peak MB':>14}"
    )
    lines = [head, "-" * len(head)]
    for r in summary:
        lines.append(
            f"{r['rule']:<14} {r['jobs']:>5} {r['measured_cpu_h']:>15.3f} "
            f"{r['predicted_cpu_h']:>16.3f} {r['median_ratio']:>17.2f} {r['within_2x']:>10.0%} "
            f"{r['max_rss_mb']:>11.0f} {r['pred_peak_mb']:>14.0f}"
        )
    return "\n".join(lines)


def calibrate(
    config: Mapping[str, Any],
    results_dir: str | Path,
    base: Mapping[str, Any] | None = None,
    timing_tables: str | None = None,
) -> dict[str, Any]:
    """New coefficients from a finished run: its traces, its benchmark files and (optionally)
    the BO timing tables. Coefficients without data keep their ``base`` value."""
    import copy

    import numpy as np

    cal = copy.deepcopy(dict(base or config_calibration(config)))
    results_dir = Path(results_dir)
    bench = read_benchmarks(results_dir)
    rows = parse_timing_tables(timing_tables) if timing_tables else []
    rows = [r for r in rows if r["method"] not in MODEL_FREE]
    traces = sorted((results_dir / "runs").rglob("*.parquet"))
    # trace times are wall-clock: scale each job's by its measured CPU / wall ratio
    share = {
        str(results_dir / "runs" / f"{b['key']}.parquet"): min(
            1.0, b["cpu_s"] / max(b["wall_s"], 1e-9)
        )
        for b in bench
        if b["rule"] == "bo_run"
    }
    rows += iterations_from_traces(traces, config, share)
    if rows:
        model = fit_iteration_model(rows)
        cal["bo"]["fit"] = model["fit"]
        cal["bo"]["acq_shape"] = model["acq_shape"]
        cal["bo"]["acq_scale"].update(model["acq_scale"])
    # Start-up: job CPU time minus the modelled seeds, over the cheap (model-free) jobs.
    bo = [b for b in bench if b["rule"] == "bo_run"]
    free = [
        b for b in bo if parse_method(config["methods"][b["key"].split("/")[1]]).base in MODEL_FREE
    ]
    if free:
        cal["bo"]["startup_s"] = float(np.median([b["cpu_s"] for b in free]))
    if bo:
        cal["bo"]["mem"]["base_mb"] = float(np.median([b["max_rss_mb"] for b in bo]))
    sc = [b for b in bench if b["rule"] == "score_run"]
    if sc:
        units = [
            score_units(config, b["key"].split("/")[0], _chunk_len(config, b["key"])) for b in sc
        ]
        a, b_ = _linear_fit(units, [b["cpu_s"] for b in sc], cal["score"]["a"])
        cal["score"].update(a=a, b=b_, mem_base_mb=float(max(b["max_rss_mb"] for b in sc)))
    from boexplore.pipeline.paper2_grid import resolve_config

    p2_units = {
        (r, k): u for r, k, u in parametric_units(resolve_config(config.get("parametric", {})))
    }
    for rule in STAGE_ORDER[2:]:
        sel = [b for b in bench if b["rule"] == rule and (rule, b["key"]) in p2_units]
        if not sel:
            continue
        a, b_ = _linear_fit(
            [p2_units[(rule, b["key"])] for b in sel],
            [b["cpu_s"] for b in sel],
            cal["parametric"]["default"]["a"],
        )
        cal["parametric"][rule] = {
            "a": a,
            "b": b_,
            "mem_mb": float(max(b["max_rss_mb"] for b in sel)),
        }
    cal["source"] = (
        f"calibrated on {results_dir} ({len(bench)} benchmark files, {len(rows)} iterations)"
    )
    return cal


def _chunk_len(config: Mapping[str, Any], key: str) -> int:
    """Seeds of a BO chunk label (``seed<k>`` or ``seeds<a>-<b>``)."""
    return len(parse_chunk_label(key.rsplit("/", 1)[-1], all_seeds(config))) or 1
