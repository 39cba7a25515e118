"""Predicted cost of every job of a workflow config: BO, scoring and paper-2 jobs, per stage.

One model serves three users: ``boexplore estimate`` (per-stage and total CPU-hours), the
SLURM resource functions in ``workflow/rules/common.smk`` and the BO seed chunking
(``workflow_config.chunk_size``). The per-method model is ``boexplore.cost``; scoring and
paper-2 jobs are linear in a work-unit count per job (``a + b * units``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from boexplore.bo.methods import parse_method
from boexplore.cost.calibration import MODEL_FREE, JobCost, config_calibration
from boexplore.cost.cpu import bo_iteration_seconds
from boexplore.cost.requests import max_runtime_min, runtime_request_min, segments_needed
from boexplore.workflow_config import (
    bo_job_cost,
    is_excluded,
    method_bo_settings,
    problem_design,
    run_table,
)


def timed_out_steps(config: Mapping[str, Any], cal: Mapping[str, Any] | None = None
                    ) -> list[dict[str, Any]]:  # fmt: skip
    """BO steps whose predicted acquisition time exceeds ``bo.acq_timeout``, per method.

    The engine aborts such a step and evaluates uniform random points instead, so these
    steps are not the method's: one row per method with any, giving the steps over the limit
    and all steps of one seed summed over the config's problems, and the problem where it
    starts earliest (smallest n)."""
    cal = cal or config_calibration(config)
    out = []
    for method, spec_str in config["methods"].items():
        spec, bo = parse_method(str(spec_str)), method_bo_settings(config, method)
        timeout = bo.get("acq_timeout")
        if not timeout or spec.base in MODEL_FREE:
            continue
        uncapped = {**bo, "acq_timeout": None}
        over = total = 0
        first: tuple[int, str] | None = None
        for problem in config["problems"]:
            if is_excluded(config, problem, method):
                continue
            d, budget, n_init = problem_design(config, problem)
            for n in range(n_init, budget, spec.q):
                total += 1
                if bo_iteration_seconds(spec, n, d, uncapped, cal)[1] > float(timeout):
                    over += 1
                    first = min(first, (n, problem)) if first else (n, problem)
        if over:
            out.append({"method": method, "timeout_s": float(timeout), "steps_over": over,
                        "steps": total, "first_n": first[0], "first_problem": first[1]})  # fmt: skip
    return out


def format_timed_out(rows: list[dict[str, Any]]) -> str:
    """One line per method of :func:`timed_out_steps` ('' when no step is predicted over)."""
    return "\n".join(
        f"{r['method']}: {r['steps_over']:,} of {r['steps']:,} BO steps per seed predicted over "
        f"bo.acq_timeout = {r['timeout_s']:.0f} s ({r['steps_over'] / r['steps']:.0%}; from "
        f"n = {r['first_n']} on {r['first_problem']}): the engine replaces them with random points"
        for r in rows
    )


# --- scoring ---------------------------------------------------------------------------------
def score_units(config: Mapping[str, Any], problem: str, n_seeds: int) -> float:
    """Work units of a scoring job: pairwise distances over every prefix, per seed."""
    d = problem_design(config, problem)[0]
    entry = config["problems"][problem]
    budget = int(entry.get("budget") or config["budget"])
    return n_seeds * (budget / 100.0) ** 2 * (1.0 + d / 100.0)


def score_job_cost(
    config: Mapping[str, Any], problem: str, method: str, n_seeds: int, cal=None
) -> JobCost:
    """Cost of one ``score_run`` job: OTSD / OE / bounds over every prefix of each trace."""
    cal = cal or config_calibration(config)
    coef = cal["score"]
    units = score_units(config, problem, n_seeds)
    mem = coef["mem_base_mb"] + coef["mem_per_unit_mb"] * units / max(n_seeds, 1)
    return JobCost("score_run", f"{problem}/{method}", coef["a"] + coef["b"] * units, mem)


# --- paper 2 ---------------------------------------------------------------------------------
# Cost of a method's round relative to an NN policy's round at the same step count, measured
# in-process (getrusage) on default-config jobs, 2026-12-04: GP policies do not train a network
# (1.4 CPU-s per seed-run vs 10.5 for RR-TS at 1000 steps), LFBO's classifier loss costs 2.5x
# a regression step; E4's lfbo_ei / lfbo_pi are cheap non-randomised fits.
_P2_METHOD_WEIGHT = {"random": 0.01, "gp_ts": 0.13, "gp_ucb": 0.13, "gp_greedy": 0.13,
                     "gp_logei": 0.3, "rr_lfbo_ei": 2.5, "lfbo_ei": 2.5}  # fmt: skip
_P2_E4_WEIGHT = {"random": 0.01, "gp_logei": 0.3, "lfbo_ei": 0.066, "lfbo_pi": 0.066}
# Methods without a trained network: their weight is per round at the reference step count.
_P2_NO_TRAINING = ("random", "gp_ts", "gp_ucb", "gp_greedy", "gp_logei")
_P2_REFERENCE_STEPS = 1000.0


def _points_factor(n_points: float) -> float:
    """Relative cost of a finite domain of ``n_points``: measured RR-TS rounds cost 2.66x as
    much at 128 points as at 32 (per-step work grows with the points plus a fixed part),
    i.e. (n + 24) / 56, which is 1 at 32 points."""
    return (float(n_points) + 24.0) / 56.0


def _method_steps(cfg: Mapping[str, Any], section: str, method: str) -> float:
    """Training steps per round of ``method`` in an experiment section (``policy_overrides``
    on top of ``policy_defaults``; methods without a network count the reference steps)."""
    if method in _P2_NO_TRAINING:
        return _P2_REFERENCE_STEPS
    over = (cfg.get(section, {}).get("policy_overrides") or {}).get(method) or {}
    return float(over.get("steps", cfg.get("policy_defaults", {}).get("steps", 100)))


def _width_factor(width: float) -> float:
    """Relative cost of a network width: measured E2 jobs took 1.9x as long at width 128 as
    at width 32 (small networks are overhead-bound), i.e. about sqrt(width)."""
    return (float(width) / 64.0) ** 0.5


def parametric_units(cfg: Mapping[str, Any]) -> list[tuple[str, str, float]]:
    """(rule, job key, work units) of every paper-2 job of a resolved ``parametric`` section.

    A unit is one Adam step of a width-64 network on one seed (NN policies), or the
    equivalent share of a GP / LFBO step; job time is ``a + b * units`` per rule.
    """
    from boexplore.pipeline.paper2_grid import e3_cells, seed_chunks

    if not cfg.get("enabled", False):
        return []
    pol = cfg.get("policy_defaults", {})
    steps = float(pol.get("steps", 100))
    wf = _width_factor(pol.get("width", 64))
    chunk = int(cfg["seed_chunk"])
    jobs: list[tuple[str, str, float]] = []

    def on(name: str) -> bool:
        return bool(cfg.get(name, {}).get("enabled", True))

    if on("e1"):
        e1 = cfg["e1"]
        for key in e1["problems"]:
            n_points = float(cfg["problems"][key].get("options", {}).get("n_points", 128))
            for m in e1["methods"]:
                m_steps = _method_steps(cfg, "e1", m)
                for i, seeds in enumerate(seed_chunks(int(e1["seeds"]), chunk)):
                    u = len(seeds) * e1["rounds"] * m_steps * wf * _points_factor(n_points)
                    jobs.append(("p2_e1", f"{key}/{m}/chunk{i}", u * _P2_METHOD_WEIGHT.get(m, 1.0)))
    if on("e2"):
        e2 = cfg["e2"]
        cells = len(e2["init_scales"]) * len(e2["lams"])
        for reg in e2["regularisers"]:
            for w in e2["widths"]:
                for i, seeds in enumerate(seed_chunks(int(e2["seeds"]), chunk)):
                    u = cells * len(seeds) * e2["rounds"] * steps * _width_factor(w)
                    jobs.append(("p2_e2", f"{e2['problem']}/{reg}_w{w}/chunk{i}", u))
    if on("e3"):
        st = cfg["e3"]["static"]
        u = len(st["lams"]) * len(st["init_scales"]) * st["n_draws"] * steps * wf
        jobs.append(("p2_e3_static", "static", u))
        dyn = cfg["e3"]["dynamic"]
        for cell in e3_cells(cfg):
            for i, seeds in enumerate(seed_chunks(int(dyn["seeds"]), chunk)):
                u = len(seeds) * dyn["rounds"] * steps * wf
                jobs.append(("p2_e3_dynamic", f"{cell['label']}/chunk{i}", u))
    if on("e4"):
        e4 = cfg["e4"]
        for key in e4["problems"]:
            for m in e4["methods"]:
                m_steps = _method_steps(cfg, "e4", m)
                for i, seeds in enumerate(seed_chunks(int(e4["seeds"]), chunk)):
                    u = (
                        len(seeds)
                        * (e4["budget"] - e4["n_init"])
                        * m_steps
                        * (1 + e4["n_candidates"] / 1000)
                    )
                    jobs.append(("p2_e4", f"{key}/{m}/chunk{i}", u * _P2_E4_WEIGHT.get(m, 1.0)))
    return jobs


def parametric_job_costs(config: Mapping[str, Any], cal=None) -> list[JobCost]:
    """Cost of every paper-2 job of a full config."""
    from boexplore.pipeline.paper2_grid import resolve_config

    cal = cal or config_calibration(config)
    cfg = resolve_config(config.get("parametric", {}))
    out = []
    for rule, key, units in parametric_units(cfg):
        coef = cal["parametric"].get(rule, cal["parametric"]["default"])
        cpu = coef["a"] + coef["b"] * units
        out.append(JobCost(rule, key, cpu, coef["mem_mb"]))
    return out


def parametric_job_cost(config: Mapping[str, Any], rule: str, key: str, cal=None) -> JobCost:
    """Cost of one paper-2 job, looked up by rule and key (``<pkey>/<pmethod>/chunk<i>``)."""
    for job in parametric_job_costs(config, cal):
        if job.rule == rule and job.key == key:
            return job
    raise KeyError(f"no paper-2 job {rule}:{key} in this config")


# --- whole workflow --------------------------------------------------------------------------
def released_start(
    config: Mapping[str, Any], problem: str, method: str, seeds: Sequence[int]
) -> int:
    """Evaluations per seed a ``bo_run`` job continues from (the fewest over its seeds): released
    traces shorter than the budget when ``release.extend`` is on (``workflow/rules/release.smk``)."""
    from boexplore.pipeline.release import released_seeds

    release = config.get("release") or {}
    root = release.get("extend_from") or release.get("traces")
    if not root or not release.get("extend", True):
        return 0
    budget = problem_design(config, problem)[1]
    found = released_seeds(root, problem, method)
    held = [found[s][1] if s in found and found[s][1] < budget else 0 for s in seeds]
    return min(held) if held else 0


def workflow_job_costs(config: Mapping[str, Any], cal=None) -> list[JobCost]:
    """Every compute job of a validated config (local aggregation / figure rules excluded)."""
    cal = cal or config_calibration(config)
    jobs: list[JobCost] = []
    for row in run_table(config):
        n = len(row["seeds"])
        start = released_start(config, row["problem"], row["method"], row["seeds"])
        for job in (
            bo_job_cost(config, row["problem"], row["method"], n, cal, start),
            score_job_cost(config, row["problem"], row["method"], n, cal),
        ):
            jobs.append(JobCost(job.rule, f"{job.key}/{row['chunk']}", job.cpu_s, job.mem_mb))
    jobs += parametric_job_costs(config, cal)
    jobs += combinatorial_job_costs(config)
    return jobs


def combinatorial_job_costs(config: Mapping[str, Any]) -> list[JobCost]:
    """Every run and scoring job of the ``combinatorial`` section (``cost.discrete``)."""
    from boexplore.cost import discrete
    from boexplore.pipeline.combinatorial_stage import jobs, section
    from boexplore.problems import get_problem

    cfg = section(config)
    dims: dict[str, int] = {}
    out = []
    for problem, method, seed in jobs(config):
        entry = cfg["problems"][problem]
        if problem not in dims:
            dims[problem] = get_problem(entry["name"], dim=entry.get("dim")).dim
        spec, key = cfg["methods"][method], f"{problem}/{method}/seed{seed}"
        cpu = discrete.run_seconds(entry["name"], dims[problem], spec, cfg["budget"], cfg["n_init"])
        out.append(JobCost("comb_run", key, cpu, discrete.MEM_MB))
        out.append(JobCost("comb_score", key, discrete.SCORE_S, discrete.MEM_MB))
    return out


def released_complete(config: Mapping[str, Any], cal=None) -> tuple[int, float]:
    """``bo_run`` jobs whose every seed the data release (``release.traces``, then the releases
    it extends) holds at the full budget, and their predicted CPU seconds: Snakemake restores them instead of running BO."""
    from boexplore.pipeline.release import complete_seed_files, restore_roots

    root = restore_roots(config.get("release") or {})
    if not root:
        return 0, 0.0
    cal = cal or config_calibration(config)
    n, cpu = 0, 0.0
    for row in run_table(config):
        budget = problem_design(config, row["problem"])[1]
        if complete_seed_files(root, row["problem"], row["method"], row["seeds"], budget):
            start = released_start(config, row["problem"], row["method"], row["seeds"])
            job = bo_job_cost(config, row["problem"], row["method"], len(row["seeds"]), cal, start)
            n, cpu = n + 1, cpu + job.cpu_s
    return n, cpu


# --- summary -----------------------------------------------------------------------------
STAGE_ORDER = (
    "bo_run", "score_run", "p2_e1", "p2_e2", "p2_e3_static", "p2_e3_dynamic", "p2_e4",
    "comb_run", "comb_score",
)  # fmt: skip


def summarize(jobs: Iterable[JobCost], config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per-stage rows (jobs, CPU-hours, peak memory, longest job, requested core-hours) + total."""
    jobs = list(jobs)
    rows = []
    stages = sorted({j.rule for j in jobs}, key=lambda r: (STAGE_ORDER + (r,)).index(r))
    for stage in [*stages, "total"]:
        sel = [j for j in jobs if stage == "total" or j.rule == stage]
        if not sel:
            continue
        longest = max(sel, key=lambda j: j.cpu_s)
        rows.append(
            {
                "stage": stage,
                "jobs": len(sel),
                "cpu_hours": sum(j.cpu_s for j in sel) / 3600.0,
                "peak_mem_mb": max(j.mem_mb for j in sel),
                "longest_job_h": longest.cpu_s / 3600.0,
                "longest_job": f"{longest.rule}:{longest.key}",
                "requested_core_hours": sum(
                    runtime_request_min(j, config) * segments_needed(j, config) for j in sel
                )
                / 60.0,
                "over_limit": sum(segments_needed(j, config) > 1 for j in sel),
            }
        )
    return rows


def format_summary(rows: list[dict[str, Any]], config: Mapping[str, Any]) -> str:
    """Plain-text table of ``summarize`` rows."""
    head = (
        f"{'stage':<14} {'jobs':>6} {'CPU-h':>10} {'peak MB':>8} {'longest h':>10} "
        f"{'req. core-h':>12} {'>limit':>7}  longest job"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        if r["stage"] == "total":
            lines.append("-" * len(head))
        lines.append(
            f"{r['stage']:<14} {r['jobs']:>6} {r['cpu_hours']:>10.1f} {r['peak_mem_mb']:>8.0f} "
            f"{r['longest_job_h']:>10.2f} {r['requested_core_hours']:>12.1f} {r['over_limit']:>7}  "
            f"{r['longest_job']}"
        )
    lines.append(
        f"partition limit {max_runtime_min(config)} min; jobs over it resume from checkpoints "
        "on resubmission ('>limit' = such jobs)."
    )
    return "\n".join(lines)
