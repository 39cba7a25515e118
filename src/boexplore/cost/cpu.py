"""Per-method CPU model of a BO run.

BO job = Python start-up + per seed: initial design + one step per iteration, where a
step costs ``fit(n, d) + acq(method, n, d) + q * eval(problem)`` with ``n`` the points
observed so far. Fit and acquisition times are power laws in ``n`` and ``1 + d / 10``
(``t = a * (n/100)^b * (1 + d/10)^c``), fitted on measured iterations (the trace columns
``fit_seconds`` / ``acq_seconds``; see ``cost.fit.fit_iteration_model``). Acquisition time is
scaled by the optimiser effort (restarts / raw samples relative to the measured
10 / 512; q-batches cost q^1.5 points) and capped by the acquisition time limit
(about ``acq_timeout``; 3 x ``acq_timeout`` + 1 s for PES)."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from typing import Any

from boexplore.bo.methods import MethodSpec, parse_method
from boexplore.cost.calibration import MODEL_FREE, REF_RAW, REF_RESTARTS
from boexplore.cost.memory import bo_peak_mem_mb


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


def acq_key(method: MethodSpec, bo: Mapping[str, Any], bo_cal: Mapping[str, Any]) -> str:
    """The calibration key of a method's acquisition terms: ``kg_cache`` for qKG with
    ``bo.kg_fantasy_cache`` (set directly or under ``bo.extra``) where it is calibrated."""
    kept = bo.get("kg_fantasy_cache", (bo.get("extra") or {}).get("kg_fantasy_cache", False))
    if method.base == "kg" and kept and "kg_cache" in bo_cal.get("acq_scale", {}):
        return "kg_cache"
    return method.base


def fit_variants(method: MethodSpec, bo: Mapping[str, Any]) -> list[str]:
    """The settings a GP fit's cost depends on beyond (n, d): the GP prior when not today's
    default (``gp_prior:gamma``), a trust region (``tr``) and RAASP (``raasp``), whose runs fit
    the same GP on differently spread data. Names of ``bo.fit_factor`` in the calibration."""
    out = []
    prior = str(bo.get("gp_prior", "dim_scaled"))
    if prior != "dim_scaled":
        out.append(f"gp_prior:{prior}")
    if method.trust_region:
        out.append("tr")
    if method.raasp:
        out.append("raasp")
    return out


def fit_seconds(
    method: MethodSpec, n: float, d: int, bo: Mapping[str, Any], bo_cal: Mapping[str, Any]
) -> float:
    """CPU seconds of one GP fit: the power law of ``bo.fit`` times the calibrated factor of
    each fit variant; from ``bo.fit_high_d.d_min`` dimensions on, its own power law and
    factors (BoTorch's fit needs ever more likelihood evaluations as n grows there); under
    ``gp_fit: log`` the power law ``bo.fit_log`` (tens of evaluations, flat in n)."""
    log_fit = str(bo.get("gp_fit", "botorch")) == "log" and "fit_log" in bo_cal
    high = bo_cal.get("fit_high_d")
    if log_fit:
        return _power(bo_cal["fit_log"], n, d)
    if not high or d <= high.get("d_low_max", high["d_min"]):
        return _fit_law(bo_cal["fit"], bo_cal.get("fit_factor", {}), method, n, d, bo)
    upper = _fit_law(high, high.get("factor", {}), method, n, max(d, high["d_min"]), bo)
    if d >= high["d_min"]:
        return upper
    # Between the dimensions either law was fitted on: geometric interpolation in log(1 + d/10)
    # from the low-d law at its largest d to the high-d law at d_min (neither extrapolates).
    lo_d = high["d_low_max"]
    lower = _fit_law(bo_cal["fit"], bo_cal.get("fit_factor", {}), method, n, lo_d, bo)
    w = (math.log1p(d / 10) - math.log1p(lo_d / 10)) / (
        math.log1p(high["d_min"] / 10) - math.log1p(lo_d / 10)
    )
    return lower ** (1 - w) * upper**w


def _fit_law(
    coef: Mapping[str, float],
    factors: Mapping[str, float],
    method: MethodSpec,
    n: float,
    d: int,
    bo: Mapping[str, Any],
) -> float:
    """One fit power law times the factor of each of the run's fit variants."""
    t = _power(coef, n, d)
    for name in fit_variants(method, bo):
        t *= float(factors.get(name, 1.0))
    return t


def bo_iteration_seconds(
    method: MethodSpec, n: float, d: int, bo: Mapping[str, Any], cal: Mapping[str, Any]
) -> tuple[float, float]:
    """(fit, acquisition) CPU seconds of one BO iteration with ``n`` points in ``d`` dims."""
    if method.base in MODEL_FREE:
        return 0.0, 0.0
    bo_cal = cal["bo"]
    fit = fit_seconds(method, n, d, bo, bo_cal) * fit_schedule_scale(bo)
    key = acq_key(method, bo, bo_cal)
    shape = {**bo_cal["acq_shape"], **bo_cal.get("acq_shape_by_method", {}).get(key, {})}
    acq_coef = {**shape, "a": bo_cal["acq_scale"].get(key, 1.0)}
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


def bo_job_estimate(
    spec_str: str,
    name: str,
    d: int,
    budget: int,
    n_init: int,
    bo: Mapping[str, Any],
    cal: Mapping[str, Any],
    n_seeds: int,
    start: int = 0,
) -> tuple[float, float]:
    """(CPU seconds, peak memory) of a BO job running ``n_seeds`` seeds of one cell.

    ``start``: evaluations per seed the job continues from (a released trace it extends).
    """
    per_seed, mem = _bo_seed_cached(
        spec_str,
        name,
        d,
        budget,
        n_init,
        json.dumps(bo, sort_keys=True),
        json.dumps(cal, sort_keys=True),
        int(start),
    )
    return cal["bo"]["startup_s"] + n_seeds * per_seed, mem
