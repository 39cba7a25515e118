"""Calibrating the cost model on a finished run, and its predictions against measured jobs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from boexplore.bo.methods import parse_method
from boexplore.cost.calibration import MODEL_FREE, REF_RAW, REF_RESTARTS, config_calibration
from boexplore.cost.cpu import batch_factor, bo_iteration_seconds, fit_variants
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
            g = g[g["iteration"] > 0]
            guarded = (
                (~g["fallback"].astype(str).isin(["", "None", "nan"])).groupby(g["iteration"]).any()
            )
            firsts = g[~g["iteration"].duplicated()]
            d = int(trace["dim"].iloc[0])
            for n, it, fit_s, acq_s in zip(
                firsts.index,
                firsts["iteration"],
                firsts["fit_seconds"],
                firsts["acq_seconds"],
                strict=True,
            ):
                if guarded[it]:
                    continue  # the time guard fired: a lower bound only
                rows.append(
                    {
                        "method": spec.base,
                        "n": int(n),
                        "d": d,
                        "fit_s": share * float(fit_s),
                        "acq_s": share * float(acq_s) / batch_factor(spec.q),
                        "restarts": int(bo.get("num_restarts", REF_RESTARTS)),
                        "raw": int(bo.get("raw_samples", REF_RAW)),
                        "q": 1,
                        "fantasies": int(spec.params.get("fantasies", 64)),
                        "variants": fit_variants(spec, bo),
                        "gp_fit": str(bo.get("gp_fit", "botorch")),
                        "seed": int(_seed),
                        "label": str(method),
                        "spec": str(config["methods"][method]),
                        "bo": bo,
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


# --- a data release's traces against the model --------------------------------------------------
D_BANDS = ((2, 6, "2-6"), (7, 49, "7-49"), (50, 60, "50-60"), (61, 100, "100"), (101, 10**6, "180"))


def d_band(d: int) -> str:
    """The d band a problem's dimension falls in (the issue's 2-6, 50-60, 100, 180)."""
    return next(name for lo, hi, name in D_BANDS if lo <= d <= hi)


def compare_iterations(rows: list[dict[str, Any]], cal: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Measured against predicted GP-fit + acquisition time of traced iterations, summed per
    d band (and ``all``): the part of a BO step the cost model prices from (n, d, method).

    Trace times are the engine's wall clock per step (one torch thread per job), the record
    of every iteration that a release keeps; the job's process start-up and objective
    evaluations are not in them and are not compared here.
    """
    import numpy as np

    per: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        method = parse_method(r.get("spec", r["method"]))
        fit, acq = bo_iteration_seconds(method, r["n"], r["d"], r.get("bo", {}), cal)
        acq /= batch_factor(method.q)  # rows hold per-point acquisition time
        meas = r["fit_s"] + r["acq_s"]
        for key in (d_band(r["d"]), "all"):
            per.setdefault(key, []).append((meas, fit + acq))
    out = []
    for band in [*(b for *_, b in D_BANDS), "all"]:
        if band not in per:
            continue
        m, p = np.array(per[band]).T
        out.append(
            {
                "band": band,
                "iterations": len(m),
                "measured_cpu_h": float(m.sum() / 3600),
                "predicted_cpu_h": float(p.sum() / 3600),
                "ratio": float(m.sum() / max(p.sum(), 1e-9)),
            }
        )
    return out


def format_band_compare(summary: list[dict[str, Any]]) -> str:
    """Plain-text table of ``compare_iterations``."""
    head = (
        f"{'d band':<8} {'iterations':>10} {'measured h':>11} {'predicted h':>12} {'meas/pred':>10}"
    )
    lines = [head, "-" * len(head)]
    for r in summary:
        lines.append(
            f"{r['band']:<8} {r['iterations']:>10} {r['measured_cpu_h']:>11.3f} "
            f"{r['predicted_cpu_h']:>12.3f} {r['ratio']:>10.2f}"
        )
    return "\n".join(lines)


#: Dimension from which the GP fit has its own terms (``bo.fit_high_d``): the high-d problems
#: of the tiers start at d = 50, the low-d ones end at 14.
HIGH_D_MIN = 50


def release_iterations(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Measured iterations of every trace in a config's data release (``release.traces``)."""
    root = Path((config.get("release") or {}).get("traces", ""))
    files = sorted(root.glob("*/*/*.parquet")) if root.is_dir() else []
    return iterations_from_traces(files, config)


def step_profile_rows(csv: str | Path) -> list[dict[str, Any]]:
    """One row per profiled state of ``bench.step_profile`` (its fit CPU seconds, either fit)."""
    import pandas as pd

    table = pd.read_csv(csv).drop_duplicates(["problem", "n", "gp_fit"])
    return [
        {"method": "ts", "n": int(r.n), "d": int(r.dim), "fit_s": float(r.fit_cpu_s),
         "acq_s": 0.0, "gp_fit": str(r.gp_fit), "restarts": REF_RESTARTS, "raw": REF_RAW,
         "fantasies": 64}
        for r in table.itertuples()
    ]  # fmt: skip


def refit_fit_terms(
    low: list[dict[str, Any]],
    high: list[dict[str, Any]],
    base: Mapping[str, Any],
    log_rows: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The cost model with its GP-fit terms refitted (``cost.fit.fit_step_model``): ``bo.fit``
    and ``bo.fit_factor`` on the iterations of ``low`` below ``HIGH_D_MIN`` dimensions,
    ``bo.fit_high_d`` on those of ``high`` from it on, ``bo.fit_log`` on ``log_rows``
    (log-space fit). Acquisition terms and everything else keep their ``base`` values."""
    import copy

    from boexplore.cost.fit import fit_step_model

    cal = copy.deepcopy(dict(base))
    lo = fit_step_model([r for r in low if r["d"] < HIGH_D_MIN])
    hi = fit_step_model([r for r in high if r["d"] >= HIGH_D_MIN])
    cal["bo"]["fit"], cal["bo"]["fit_factor"] = lo["fit"], lo["fit_factor"]
    cal["bo"]["fit_high_d"] = {
        **hi["fit"],
        "factor": hi["fit_factor"],
        "d_min": HIGH_D_MIN,
        "d_low_max": max(r["d"] for r in low if r["d"] < HIGH_D_MIN),
    }
    logs = [r for r in log_rows or [] if r.get("gp_fit") == "log"]
    if logs:
        import math

        import numpy as np

        from boexplore.cost.fit import _smeared_lstsq

        ln = np.log([r["n"] / 100.0 for r in logs])
        ld = np.log1p([r["d"] / 10.0 for r in logs])
        beta, smear = _smeared_lstsq(
            np.column_stack([np.ones(len(logs)), ln, ld]), np.log([r["fit_s"] for r in logs])
        )
        cal["bo"]["fit_log"] = {
            "a": float(math.exp(beta[0]) * smear), "b": float(beta[1]), "c": float(beta[2])
        }  # fmt: skip
    return cal


def band_report(
    releases: Mapping[str, list[dict[str, Any]]],
    cal: Mapping[str, Any],
    held_out_cal: Mapping[str, Any],
    command: str,
) -> str:
    """Markdown: the model against each release's iterations per d band, in sample (``cal``)
    and on odd seeds with the terms refitted on even seeds only (``held_out_cal``)."""
    lines = [
        "# The cost model against the data releases, per d band",
        "",
        f"Generated by `{command}`. Measured: the GP fit + acquisition seconds every traced "
        "iteration of a release records (wall clock of one-thread jobs on shared 2-core "
        "machines); predicted: the cost model's fit + acquisition terms for the same (method, "
        "settings, n, d). Held out: terms refitted on the even seeds only, set against the "
        "odd seeds.",
        "",
        "| release | d band | iterations | measured h | predicted h | measured / predicted "
        "| held out: measured / predicted |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, rows in releases.items():
        odd = [r for r in rows if r.get("seed", 0) % 2 == 1]
        held = {r["band"]: r["ratio"] for r in compare_iterations(odd, held_out_cal)}
        for r in compare_iterations(rows, cal):
            lines.append(
                f"| {name} | {r['band']} | {r['iterations']} | {r['measured_cpu_h']:.2f} | "
                f"{r['predicted_cpu_h']:.2f} | {r['ratio']:.2f} | "
                f"{held.get(r['band'], float('nan')):.2f} |"
            )
    return "\n".join(lines) + "\n"
