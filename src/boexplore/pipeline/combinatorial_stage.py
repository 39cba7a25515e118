"""The workflow's stages beyond the box (our extension): problems, runs, scoring, tables.

The ``combinatorial`` config section (``boexplore/schema/combinatorial.schema.yaml``) names
problems of kind ``combinatorial``, discrete method specs (``boexplore.discrete``), seeds and a
budget. One job per (problem, method, seed): ``run`` writes the trace (raw domain values in
``x_*``), ``score`` the per-prefix OTSD, OE, their random-search references and the tour bounds
of ``metrics.domain`` with the bounds check on every prefix, ``tables`` the final-prefix row of
every run, the per-cell means and the bounds summary.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from boexplore.io import atomic_write

log = logging.getLogger("boexplore.pipeline")

#: Columns of the per-run table (the final prefix of every scored run).
RUN_COLUMNS: tuple[str, ...] = (
    "problem", "problem_name", "domain", "dim", "method", "method_spec", "seed", "n", "otsd",
    "otsd_random", "otsd_rel", "oe", "oe_random", "oe_rel", "best_so_far", "regret",
    "bounds_inside_frac",
)  # fmt: skip


def section(config: Mapping[str, Any]) -> dict[str, Any]:
    """The validated ``combinatorial`` section (schema defaults filled in)."""
    from boexplore.schema import schema_defaults

    return {**schema_defaults("combinatorial"), **(config.get("combinatorial") or {})}


def jobs(config: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """Every (problem label, method label, seed) of an enabled section, else []."""
    cfg = section(config)
    if not cfg["enabled"]:
        return []
    return [(p, m, s) for p in cfg["problems"] for m in cfg["methods"] for s in range(cfg["seeds"])]


def generate(entry: Mapping[str, Any], out: str | Path) -> None:
    """Materialise one problem instance as JSON (``problems.save_instance``)."""
    from boexplore.problems import get_problem, save_instance

    problem = get_problem(
        entry["name"],
        dim=entry.get("dim"),
        instance_seed=int(entry.get("instance_seed", 0)),
        **dict(entry.get("options") or {}),
    )
    save_instance(problem, out)


def run(
    problem_json: str | Path,
    problem_label: str,
    method_label: str,
    spec: str,
    seed: int,
    cfg: Mapping[str, Any],
    out: str | Path,
) -> None:
    """One run's trace (``discrete.run_discrete``) to parquet."""
    from boexplore.discrete import run_discrete
    from boexplore.problems import load_instance

    trace = run_discrete(
        load_instance(problem_json), spec, int(seed), int(cfg["budget"]), int(cfg["n_init"]),
        method_label=method_label, problem_label=problem_label,
        num_restarts=int(cfg["num_restarts"]), raw_samples=int(cfg["raw_samples"]),
    )  # fmt: skip
    atomic_write(trace, out)
    log.info("%s / %s / seed %d: best %.6g", problem_label, method_label, seed, trace.y.max())


def score(
    trace_path: str | Path, problem_json: str | Path, reference_reps: int, out: str | Path
) -> None:
    """Per-prefix domain metrics of one trace, with the references and the bounds check."""
    from boexplore.metrics.domain import (
        RandomSearchReference,
        check_domain_bounds,
        parse_domain,
        score_domain_trace,
    )
    from boexplore.problems import load_instance

    problem = load_instance(problem_json)
    domain = parse_domain(problem.domain_spec)
    trace = pd.read_parquet(trace_path)
    table = score_domain_trace(trace, domain, RandomSearchReference(n_rep=int(reference_reps)))
    check = check_domain_bounds(
        table["otsd"],
        {"lb": table["otsd_lb"], "ub_tour": table["otsd_ub"], "ub_opt": table["opt_ub"]},
    )
    for key, values in check.items():
        table[f"bounds_{key}"] = values
    table["domain"] = domain.spec
    table["method_spec"] = trace["method_spec"].iloc[0]
    atomic_write(table, out)
    bad = int((~check["inside_all"]).sum())
    if bad:
        log.error("%s: %d prefixes outside the domain bounds", trace_path, bad)


def tables(
    metric_files: Sequence[str | Path],
    problems: Mapping[str, Mapping[str, Any]],
    out_runs: str | Path,
    out_summary: str | Path,
    out_bounds: str | Path,
) -> None:
    """Per-run final rows, per-cell means (with seed counts) and the bounds summary."""
    frames = [pd.read_parquet(f) for f in metric_files]
    allp = pd.concat(frames, ignore_index=True)
    allp["problem_name"] = allp["problem"].map({k: v["name"] for k, v in problems.items()})
    keys = ["problem", "method", "seed"]
    inside = allp.groupby(keys, sort=True)["bounds_inside_all"].mean().rename("bounds_inside_frac")
    final = allp.sort_values("n").groupby(keys, sort=True).tail(1).set_index(keys)
    final = final.join(inside).reset_index()
    runs = final[list(RUN_COLUMNS)].sort_values(keys).reset_index(drop=True)
    atomic_write(runs, out_runs)
    cell = ["problem", "problem_name", "domain", "method", "method_spec"]
    summary = (
        runs.groupby(cell, sort=True)
        .agg(
            n_seeds=("seed", "nunique"),
            n=("n", "max"),
            otsd_rel_mean=("otsd_rel", "mean"),
            oe_rel_mean=("oe_rel", "mean"),
            best_mean=("best_so_far", "mean"),
            regret_mean=("regret", "mean"),
        )
        .reset_index()
    )
    atomic_write(summary, out_summary)
    checks = [c for c in allp.columns if c.startswith("bounds_") and c != "bounds_inside_frac"]
    bounds = allp.groupby(["problem", "method"], sort=True)[checks].mean().reset_index()
    bounds["prefixes"] = allp.groupby(["problem", "method"], sort=True).size().to_numpy()
    atomic_write(bounds, out_bounds)
    outside = int((~allp["bounds_inside_all"].astype(bool)).sum())
    log.info("%d runs, %d prefixes outside the bounds", len(runs), outside)
