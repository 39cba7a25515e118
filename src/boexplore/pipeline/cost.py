"""Cost model of the workflow: CPU time and peak memory of every job a config asks for.

One model serves three users: ``boexplore estimate`` (per-stage and total CPU-hours),
the SLURM resource functions in ``workflow/rules/common.smk`` (runtime / memory
requests) and the BO seed chunking (expensive jobs get one seed each).

BO job = Python start-up + per seed: initial design + one step per iteration, where a
step costs ``fit(n, d) + acq(method, n, d) + q * eval(problem)`` with ``n`` the points
observed so far. Fit and acquisition times are power laws in ``n`` and ``1 + d / 10``
(``t = a * (n/100)^b * (1 + d/10)^c``), fitted on measured iterations (the trace columns
``fit_seconds`` / ``acq_seconds``; see ``fit_iteration_model``). Acquisition time is
scaled by the optimiser effort (restarts / raw samples relative to the measured
10 / 512; q-batches cost q^1.5 points) and capped by the acquisition time limit
(about ``acq_timeout``; 3 x ``acq_timeout`` + 1 s for PES).
Scoring and paper-2 jobs are linear in a work-unit count per job (``a + b * units``).
Coefficients live in ``cost_calibration.json`` next to this module.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boexplore.bo.methods import MethodSpec, methods_of_class, parse_method

CALIBRATION_FILE = Path(__file__).with_name("cost_calibration.json")
# Cost classes come from the one method registry (boexplore.bo.methods.METHODS).
EXPENSIVE_METHODS = methods_of_class("expensive")  # acquisition dominates: one seed per job
MODEL_FREE = methods_of_class("free")
# Settings the acquisition timings in the calibration data were measured with.
REF_RESTARTS, REF_RAW = 10, 512


@dataclass(frozen=True)
class JobCost:
    """Predicted cost of one workflow job."""

    rule: str
    key: str  # the job's wildcards joined with "/", unique within a rule
    cpu_s: float  # CPU seconds on one core (all jobs are single-threaded)
    mem_mb: float  # predicted peak resident memory

    @property
    def stage(self) -> str:
        """Stage name used in the estimate table (rule, or the paper-2 family)."""
        return self.rule


def load_calibration(path: str | Path | None = None) -> dict[str, Any]:
    """Coefficients of the model (the shipped file unless ``path`` is given); a fresh copy."""
    return json.loads(_read_text(str(path or CALIBRATION_FILE)))


def config_calibration(config: Mapping[str, Any]) -> dict[str, Any]:
    """The calibration a config names (``resources.calibration``), else the shipped one."""
    return load_calibration((config.get("resources", {}) or {}).get("calibration"))


@functools.lru_cache(maxsize=8)
def _read_text(path: str) -> str:
    return Path(path).read_text()


# --- BO jobs -------------------------------------------------------------------------------
def _power(coef: Mapping[str, float], n: float, d: int) -> float:
    """``a * (n/100)^b * (1 + d/10)^c``, with optional terms in log space: an n x d
    interaction ``e`` and a curvature ``b2`` (``b2 log(n/100)^2``: cost growing faster than
    one power of n, as qKG's does from n = 100 on)."""
    ln_n, ln_d = math.log(max(n, 1.0) / 100.0), math.log1p(d / 10.0)
    return coef["a"] * math.exp(
        coef["b"] * ln_n
        + coef.get("b2", 0.0) * ln_n * ln_n
        + coef["c"] * ln_d
        + coef.get("e", 0.0) * ln_n * ln_d
    )


# Share of an acquisition step that does not scale with the optimiser's restarts / raw samples
# (max-value / optimal-point sampling of the entropy searches); the rest does.
FIXED_ACQ_SHARE = {"mes": 0.8, "gibbon": 0.8, "jes": 0.8, "pes": 0.8, "kg": 0.2, "ts": 1.0}


def _acq_scale(method: MethodSpec, bo: Mapping[str, Any], cal: Mapping[str, Any]) -> float:
    """Acquisition cost relative to the calibration settings (restarts, raw samples, fantasies)."""
    restarts = float(bo.get("num_restarts", REF_RESTARTS))
    raw = float(bo.get("raw_samples", REF_RAW))
    effort = 0.7 * restarts / REF_RESTARTS + 0.3 * raw / REF_RAW
    fixed = (
        cal.get("bo", {})
        .get("fixed_acq_share", {})
        .get(method.base, FIXED_ACQ_SHARE.get(method.base, 0.3))
    )
    scale = fixed + (1.0 - fixed) * effort
    if method.base == "kg":
        # share of a qKG step that does not scale with the fantasies (boexplore.bench.kg)
        fixed_f = float(cal.get("bo", {}).get("kg_fantasy_fixed", 0.0))
        scale *= fixed_f + (1.0 - fixed_f) * float(method.params.get("fantasies", 64)) / 64.0
    return scale * batch_factor(method.q)


def batch_factor(q: int) -> float:
    """Cost of optimising a q-batch jointly relative to one point (q x d variables)."""
    return float(q) ** 1.5


# Cost of re-conditioning the GP on new data with fixed hyperparameters (one Cholesky)
# relative to a full hyperparameter fit (measured by boexplore.bench.quality: 1-3 %).
CONDITION_SHARE = 0.03


def fit_schedule_scale(bo: Mapping[str, Any]) -> float:
    """Mean GP-fit cost per iteration relative to a fit every iteration (``refit_every``)."""
    k = max(1, int(bo.get("refit_every", 1)))
    return 1.0 / k + (1.0 - 1.0 / k) * CONDITION_SHARE


def bo_iteration_seconds(
    method: MethodSpec, n: float, d: int, bo: Mapping[str, Any], cal: Mapping[str, Any]
) -> tuple[float, float]:
    """(fit, acquisition) CPU seconds of one BO iteration with ``n`` points in ``d`` dims."""
    if method.base in MODEL_FREE:
        return 0.0, 0.0
    bo_cal = cal["bo"]
    fit = _power(bo_cal["fit"], n, d) * fit_schedule_scale(bo)
    shape = {**bo_cal["acq_shape"], **bo_cal.get("acq_shape_by_method", {}).get(method.base, {})}
    acq_coef = {**shape, "a": bo_cal["acq_scale"].get(method.base, 1.0)}
    acq = _power(acq_coef, n, d) * _acq_scale(method, bo, cal)
    timeout = bo.get("acq_timeout")
    if timeout:
        # The engine's hard guard (SIGALRM) aborts the whole acquisition step, q points
        # included, at acq_timeout seconds for every method (bo.acquisition.proposal).
        acq = min(acq, float(timeout))
    return fit, acq


def problem_eval_seconds(problem_name: str, cal: Mapping[str, Any]) -> float:
    """CPU seconds of one objective evaluation (real-world simulators dominate here)."""
    return float(cal["bo"]["eval_s"].get(problem_name, cal["bo"]["eval_s_default"]))


def bo_seed_seconds(
    method: MethodSpec,
    problem_name: str,
    d: int,
    budget: int,
    n_init: int,
    bo: Mapping[str, Any],
    cal: Mapping[str, Any],
    start: int = 0,
) -> float:
    """CPU seconds of one BO run (one seed) without the process start-up.

    ``start``: evaluations the run already holds (a released trace it extends); only the
    iterations after them are counted.
    """
    ev = problem_eval_seconds(problem_name, cal)
    total = n_init * ev if start < n_init else 0.0
    n = n_init
    while n < budget:
        q = min(method.q, budget - n)
        if n >= start:
            fit, acq = bo_iteration_seconds(method, n, d, bo, cal)
            total += fit + acq * batch_factor(q) / batch_factor(method.q) + q * ev
            total += cal["bo"]["iteration_overhead_s"]
        n += q
    return total


def bo_peak_mem_mb(
    method: MethodSpec,
    budget: int,
    d: int,
    cal: Mapping[str, Any],
    bo: Mapping[str, Any] | None = None,
) -> float:
    """Peak resident memory of a BO job: interpreter + torch, plus GP / fantasy matrices.

    qKG jobs follow the measured model of its last step (n = budget; restarts batched as the
    engine batches them under ``bo.kg_memory_cap_mb``; ``bo.acquisition.kg_memory``).
    """
    mem = cal["bo"]["mem"]
    n = float(budget)
    if method.base == "kg":
        from boexplore.bo.acquisition.kg_memory import KG_MEMORY, kg_batch_limit

        bo = bo or {}
        fantasies = int(method.params.get("fantasies", 64))
        restarts = int(bo.get("num_restarts", REF_RESTARTS))
        cap = bo.get("kg_memory_cap_mb", (bo.get("extra") or {}).get("kg_memory_cap_mb"))
        raw = int(bo.get("raw_samples", REF_RAW))
        batch = kg_batch_limit(budget, d, method.q, fantasies, restarts, cap, raw_samples=raw)
        return KG_MEMORY.step_peak_mb(budget, d, method.q, fantasies, batch_limit=batch,
                                      raw_samples=raw)  # fmt: skip
    extra = mem["per_n2_mb"] * (n / 100.0) ** 2 + mem["per_nd_mb"] * n * d / 1e4
    if method.base in EXPENSIVE_METHODS:
        extra *= mem["expensive_factor"]
    return mem["base_mb"] + extra


def _problem_name_dim(config: Mapping[str, Any], problem: str) -> tuple[str, int]:
    from boexplore.workflow_config import problem_design

    return config["problems"][problem]["name"], problem_design(config, problem)[0]


def bo_job_cost(
    config: Mapping[str, Any],
    problem: str,
    method: str,
    n_seeds: int,
    cal: Mapping[str, Any] | None = None,
    start: int = 0,
) -> JobCost:
    """Cost of one ``bo_run`` job running ``n_seeds`` seeds of (problem, method).

    ``start``: evaluations per seed the job continues from (a released trace it extends).
    """
    from boexplore.workflow_config import method_bo_settings, problem_design

    cal = cal or config_calibration(config)
    name = config["problems"][problem]["name"]
    d, budget, n_init = problem_design(config, problem)
    spec_str = config["methods"][method]
    per_seed, mem = _bo_seed_cached(
        spec_str,
        name,
        d,
        budget,
        n_init,
        json.dumps(method_bo_settings(config, method), sort_keys=True),
        json.dumps(cal, sort_keys=True),
        int(start),
    )
    cpu = cal["bo"]["startup_s"] + n_seeds * per_seed
    return JobCost("bo_run", f"{problem}/{method}", cpu, mem)


@functools.lru_cache(maxsize=4096)
def _bo_seed_cached(
    spec_str: str,
    name: str,
    d: int,
    budget: int,
    n_init: int,
    bo_json: str,
    cal_json: str,
    start: int = 0,
) -> tuple[float, float]:
    """(CPU seconds per seed, peak memory) memoised: the workflow asks for them per job."""
    spec, bo, cal = parse_method(spec_str), json.loads(bo_json), json.loads(cal_json)
    return (
        bo_seed_seconds(spec, name, d, budget, n_init, bo, cal, start),
        bo_peak_mem_mb(spec, budget, d, cal, bo),
    )


def timed_out_steps(config: Mapping[str, Any], cal: Mapping[str, Any] | None = None
                    ) -> list[dict[str, Any]]:  # fmt: skip
    """BO steps whose predicted acquisition time exceeds ``bo.acq_timeout``, per method.

    The engine aborts such a step and evaluates uniform random points instead, so these
    steps are not the method's: one row per method with any, giving the steps over the limit
    and all steps of one seed summed over the config's problems, and the problem where it
    starts earliest (smallest n)."""
    from boexplore.workflow_config import is_excluded, method_bo_settings, problem_design

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


# --- seed chunks ---------------------------------------------------------------------------
def _resources(config: Mapping[str, Any]) -> Mapping[str, Any]:
    return config.get("resources", {}) or {}


def max_runtime_min(config: Mapping[str, Any]) -> int:
    """The partition's wall-time limit every request is capped at (minutes)."""
    return int(_resources(config).get("max_runtime_min", 1440))


def chunk_size(config: Mapping[str, Any], problem: str, method: str) -> int:
    """Seeds per BO job for (problem, method).

    One seed per job for the expensive acquisition functions and for d at or above
    ``resources.single_seed_min_dim``; otherwise ``seeds_per_job``, reduced until the
    predicted job fits in half the partition limit (so a job rarely needs a resubmission).
    """
    per_job = int(config.get("seeds_per_job", 1))
    if per_job <= 1:
        return 1
    res = _resources(config)
    base = parse_method(config["methods"][method]).base
    _, d = _problem_name_dim(config, problem)
    if base in res.get("expensive_methods", EXPENSIVE_METHODS):
        return 1
    if d >= int(res.get("single_seed_min_dim", 50)):
        return 1
    cal = config_calibration(config)
    one = bo_job_cost(config, problem, method, 1, cal).cpu_s
    start = cal["bo"]["startup_s"]
    limit_s = 0.5 * max_runtime_min(config) * 60.0 / float(res.get("runtime_factor", 1.0))
    fit = int((limit_s - start) // max(one - start, 1e-9))
    return max(1, min(per_job, fit))


# --- scoring ---------------------------------------------------------------------------------
def score_units(config: Mapping[str, Any], problem: str, n_seeds: int) -> float:
    """Work units of a scoring job: pairwise distances over every prefix, per seed."""
    _, d = _problem_name_dim(config, problem)
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
_P2_METHOD_WEIGHT = {"random": 0.01, "gp_ts": 0.13, "gp_ucb": 0.13, "gp_logei": 0.3,
                     "rr_lfbo_ei": 2.5, "lfbo_ei": 2.5}  # fmt: skip
_P2_E4_WEIGHT = {"random": 0.01, "gp_logei": 0.3, "lfbo_ei": 0.066, "lfbo_pi": 0.066}
# Methods without a trained network: their weight is per round at the reference step count.
_P2_NO_TRAINING = ("random", "gp_ts", "gp_ucb", "gp_logei")
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
    from boexplore.workflow_config import problem_design

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
    from boexplore.workflow_config import run_table

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
    return jobs


def released_complete(config: Mapping[str, Any], cal=None) -> tuple[int, float]:
    """``bo_run`` jobs whose every seed the data release (``release.traces``, then the releases
    it extends) holds at the full budget, and their predicted CPU seconds: Snakemake restores them instead of running BO."""
    from boexplore.pipeline.release import complete_seed_files, restore_roots
    from boexplore.workflow_config import problem_design, run_table

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


# --- SLURM requests --------------------------------------------------------------------------
def runtime_request_min(cost: JobCost, config: Mapping[str, Any], attempt: int = 1) -> int:
    """Wall-time request: (2x the prediction x runtime_factor + 5 min) x attempt, capped at the
    partition limit.

    A BO job longer than the cap is killed at the limit and resumed from its checkpoint by
    the retry; ``segments_needed`` says how many submissions that takes.
    """
    factor = float(_resources(config).get("runtime_factor", 1.0))
    want = (2.0 * cost.cpu_s / 60.0 * factor + 5.0) * attempt
    return int(min(max_runtime_min(config), max(10, math.ceil(want))))


def mem_request_mb(cost: JobCost, config: Mapping[str, Any], attempt: int = 1) -> int:
    """Memory request: 1.5x the predicted peak (min 1 GB), +50 % per retry."""
    factor = float(_resources(config).get("mem_factor", 1.0))
    want = max(1000.0, 1.5 * cost.mem_mb) * factor * (1.0 + 0.5 * (attempt - 1))
    return int(math.ceil(want / 100.0) * 100)


def segments_needed(cost: JobCost, config: Mapping[str, Any]) -> int:
    """Submissions a job needs when each may last at most the partition limit."""
    factor = float(_resources(config).get("runtime_factor", 1.0))
    return max(1, math.ceil(2.0 * cost.cpu_s * factor / 60.0 / max_runtime_min(config)))


# --- summary -----------------------------------------------------------------------------
STAGE_ORDER = ("bo_run", "score_run", "p2_e1", "p2_e2", "p2_e3_static", "p2_e3_dynamic", "p2_e4")


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


# --- calibration -----------------------------------------------------------------------------
def parse_timing_tables(markdown: str) -> list[dict[str, Any]]:
    """Iterations of ``docs/bo_timings.md``: rows (method, n, d, fit_s, acq_s).

    Cells that hit the acquisition time guard (``timeout`` / ``error``) are dropped: their
    acquisition time is a lower bound only.
    """
    rows: list[dict[str, Any]] = []
    header: list[tuple[int, int]] | None = None
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2:
            header = None
            continue
        if cells[0] == "method":
            header = []
            for c in cells[1:]:
                m = re.fullmatch(r"n=(\d+) d=(\d+)", c)
                header.append((int(m[1]), int(m[2])) if m else (0, 0))
            continue
        if header is None or set(cells[0]) <= {"-"}:
            continue
        base = cells[0].split("(")[0]
        for (n, d), cell in zip(header, cells[1:], strict=False):
            m = re.fullmatch(r"([\d.]+) / ([\d.]+)", cell)
            if n and m:
                rows.append(
                    {
                        "method": base,
                        "n": n,
                        "d": d,
                        "fit_s": float(m[1]),
                        "acq_s": float(m[2]),
                        "restarts": REF_RESTARTS,
                        "raw": REF_RAW,
                        "q": 1,
                        "fantasies": 64,
                    }
                )
    return rows


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

    from boexplore.workflow_config import method_bo_settings

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


def fit_iteration_model(rows: list[dict[str, Any]], interaction: bool = False) -> dict[str, Any]:
    """Least squares in log space: fit-time power law and per-method acquisition scales.

    ``log t = log a_m + b log(n/100) + c log(1 + d/10) + e log(n/100) log(1 + d/10)`` with
    shared ``b``, ``c``, ``e`` (``e`` = 0 unless ``interaction``) and one ``a_m`` per method (acquisition; normalised by the optimiser effort), one ``a`` for the fit.
    """
    import numpy as np

    def design(sel, per_method):
        methods = sorted({r["method"] for r in sel}) if per_method else ["all"]
        X = np.zeros((len(sel), len(methods) + 3))
        for i, r in enumerate(sel):
            X[i, methods.index(r["method"] if per_method else "all")] = 1.0
            X[i, -3] = math.log(max(r["n"], 1) / 100.0)
            X[i, -2] = math.log1p(r["d"] / 10.0)
            X[i, -1] = X[i, -3] * X[i, -2] if interaction else 0.0
        return X, methods

    sel = [r for r in rows if r["fit_s"] > 0]
    X, _ = design(sel, False)
    y = np.log([max(r["fit_s"], 0.01) for r in sel])
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    fit = {
        "a": float(math.exp(beta[0])),
        "b": float(beta[1]),
        "c": float(beta[2]),
        "e": float(beta[3]),
    }

    sel = [r for r in rows if r["acq_s"] > 0]
    X, methods = design(sel, True)
    scale = []
    for r in sel:
        m = MethodSpec(r["method"], {"fantasies": r["fantasies"]})
        scale.append(_acq_scale(m, {"num_restarts": r["restarts"], "raw_samples": r["raw"]}, {}))
    y = np.log([max(r["acq_s"], 0.01) / s for r, s in zip(sel, scale, strict=True)])
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    acq_scale = {m: float(math.exp(beta[i])) for i, m in enumerate(methods)}
    return {
        "fit": fit,
        "acq_shape": {"b": float(beta[-3]), "c": float(beta[-2]), "e": float(beta[-1])},
        "acq_scale": acq_scale,
        "n_rows": len(rows),
    }


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


def _linear_fit(units: list[float], seconds: list[float], a0: float) -> tuple[float, float]:
    """Non-negative ``a + b * units`` by least squares (``a0`` when the data cannot tell a)."""
    import numpy as np

    u, t = np.asarray(units, float), np.asarray(seconds, float)
    if len(set(np.round(u, 9))) >= 2:
        a, b = np.polyfit(u, t, 1)[::-1]
        if a >= 0 and b > 0:
            return float(a), float(b)
    a = min(a0, float(t.min()))
    b = float(np.median((t - a) / np.maximum(u, 1e-12)))
    return a, max(b, 0.0)


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
    from boexplore.workflow_config import all_seeds, parse_chunk_label

    return len(parse_chunk_label(key.rsplit("/", 1)[-1], all_seeds(config))) or 1
