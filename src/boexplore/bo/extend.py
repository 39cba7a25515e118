"""Continue a BO run from its trace: the stored evaluations become the run's state.

A trace holds everything a run's future depends on when GP hyperparameters are fitted cold
every iteration (the engine default): the evaluated points and values, the iteration
structure (per-iteration seeds are a function of (seed, iteration), ``loop.iteration_seed``)
and, for trust-region runs, the region's state, which is a function of the values and is
replayed here (and checked against the trace's ``tr_length`` column). So a run extended
from a trace of its own first ``n`` evaluations continues exactly as the longer run would
have, and the first ``n`` rows stay what they were.

A released (float32) trace is continued from its rounded values: the continuation is then
a function of the released trace, not of the float64 run that made it, and the extended
run's identity records the source trace's fingerprint.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
import pandas as pd

from boexplore.bo.methods import MethodSpec, parse_method
from boexplore.bo.settings import BOSettings
from boexplore.bo.state import RunState, sobol_unit
from boexplore.bo.trust_region import TrustRegionState

#: Float32 storage: values agree with a float64 recomputation to this relative precision.
_REL_TOL = 1e-5


class TraceExtensionError(ValueError):
    """The trace cannot be the first part of the requested run (the reason says why)."""


def trace_fingerprint(rows: pd.DataFrame, dim: int) -> str:
    """sha256 of a seed's evaluated points, values and iteration numbers (as float64)."""
    h = hashlib.sha256()
    x = rows[[f"x_{j}" for j in range(dim)]].to_numpy(dtype=np.float64)
    h.update(np.ascontiguousarray(x).tobytes())
    h.update(rows["y"].to_numpy(dtype=np.float64).tobytes())
    h.update(rows["iteration"].to_numpy(dtype=np.int64).tobytes())
    return h.hexdigest()


def _rows_of_seed(trace: pd.DataFrame, seed: int, dim: int) -> pd.DataFrame:
    needed = ["seed", "method_spec", "iteration", "batch_index", "eval_index", "y"]
    needed += [f"x_{j}" for j in range(dim)]
    missing = [c for c in needed if c not in trace.columns]
    if missing:
        raise TraceExtensionError(f"the trace lacks columns {missing} (dimension {dim})")
    if f"x_{dim}" in trace.columns:
        raise TraceExtensionError(f"the trace has more than {dim} coordinates")
    rows = trace[trace["seed"] == seed].sort_values("eval_index").reset_index(drop=True)
    if rows.empty:
        raise TraceExtensionError(f"the trace has no rows for seed {seed}")
    return rows


def _check_structure(rows: pd.DataFrame, spec: MethodSpec, n_init: int, budget: int) -> None:
    stored = parse_method(str(rows["method_spec"].iloc[0])).canonical()
    if stored != spec.canonical():
        raise TraceExtensionError(f"the trace is of method {stored!r}, not {spec.canonical()!r}")
    if not np.array_equal(rows["eval_index"].to_numpy(), np.arange(len(rows))):
        raise TraceExtensionError("the trace's eval_index is not 0, 1, ..., n-1")
    its = rows["iteration"].to_numpy(dtype=np.int64)
    if int((its == 0).sum()) != n_init or np.any(its[:n_init] != 0):
        raise TraceExtensionError(
            f"the trace has {int((its == 0).sum())} initial evaluations, the run {n_init}"
        )
    if len(rows) > budget:
        raise TraceExtensionError(f"the trace holds {len(rows)} evaluations, budget is {budget}")
    sizes = np.bincount(its[its > 0])[1:] if its.max() > 0 else np.zeros(0, dtype=np.int64)
    if np.any(sizes == 0) or np.any(np.diff(its) < 0):
        raise TraceExtensionError("the trace's BO iterations are not 1, 2, ... in order")
    if len(rows) < budget and np.any(sizes != spec.q):
        raise TraceExtensionError(
            f"a batch of the trace was cut (sizes {sorted(set(sizes.tolist()))}, q = {spec.q}): "
            "it is not the prefix of a longer run"
        )


def _check_origin(rows: pd.DataFrame, problem: Any, seed: int, n_init: int, dim: int) -> None:
    """The initial design is this seed's Sobol design and the values are this problem's."""
    x0 = rows[[f"x_{j}" for j in range(dim)]].to_numpy(dtype=np.float64)[:n_init]
    if not np.allclose(x0, sobol_unit(dim, seed, 0, n_init), rtol=0.0, atol=1e-6):
        raise TraceExtensionError(f"the trace's initial design is not seed {seed}'s design")
    if float(getattr(problem, "noise_std", 0.0) or 0.0) > 0.0:
        return  # noisy values are a function of the float64 point: not re-checkable here
    y0 = rows["y"].to_numpy(dtype=np.float64)[:n_init]
    again = np.asarray(problem.evaluate(x0), dtype=np.float64).reshape(-1)
    both = np.isfinite(y0) & np.isfinite(again)
    same_nan = np.array_equal(np.isfinite(y0), np.isfinite(again))
    scale = np.maximum(np.abs(again[both]), 1e-12)
    if not same_nan or np.any(np.abs(y0[both] - again[both]) > _REL_TOL * scale + 1e-9):
        raise TraceExtensionError(
            "the trace's initial values are not this problem instance's (re-evaluated the "
            "initial design): it was made on another instance"
        )


def _replay_trust_region(
    rows: pd.DataFrame, spec: MethodSpec, settings: BOSettings, n_init: int, dim: int
) -> dict | None:
    """The trust region's state after the trace's last iteration (checked against tr_length)."""
    if not spec.trust_region:
        return None
    y = rows["y"].to_numpy(dtype=np.float64)
    its = rows["iteration"].to_numpy(dtype=np.int64)
    stored = rows["tr_length"].to_numpy(dtype=np.float64) if "tr_length" in rows else None
    finite0 = y[:n_init][np.isfinite(y[:n_init])]
    tr = TrustRegionState(
        dim=dim,
        q=spec.q,
        success_tolerance=settings.tr_success_tolerance,
        failure_tolerance=settings.tr_failure_tolerance,
        best_value=float(finite0.max()) if finite0.size else -math.inf,
    )
    for it in range(1, int(its.max()) + 1):
        batch = np.flatnonzero(its == it)
        if stored is not None and not math.isclose(
            tr.length, float(stored[batch[0]]), rel_tol=_REL_TOL
        ):
            raise TraceExtensionError(
                f"replaying the trust region gives length {tr.length:.6g} at iteration {it}, "
                f"the trace says {float(stored[batch[0]]):.6g}"
            )
        finite = y[batch][np.isfinite(y[batch])]
        tr.update(float(finite.max()) if finite.size else float("nan"))
    return tr.to_dict() if its.max() > 0 else None


def state_from_trace(
    trace: pd.DataFrame,
    problem: Any,
    spec: MethodSpec,
    settings: BOSettings,
    seed: int,
    n_init: int,
    budget: int,
) -> tuple[RunState, str]:
    """(run state, source fingerprint) from the rows of ``seed`` in ``trace``.

    Raises TraceExtensionError when the trace cannot be this run's beginning: another
    method, seed, design size or problem instance, a batch cut short, more evaluations
    than the budget, or a run whose state is not in a trace (warm-started or reused GP fits,
    warm-started qKG).
    """
    if spec.model_based and (settings.warm_start or settings.refit_every > 1):
        raise TraceExtensionError(
            "a run with warm-started or reused GP fits (warm_start / refit_every) depends on "
            "hyperparameters a trace does not hold: extend it from its checkpoint or re-run"
        )
    if spec.base == "kg" and settings.kg_warm_start:
        raise TraceExtensionError(
            "a warm-started qKG run (kg_warm_start) starts each step from the previous one-shot "
            "solution, which a trace does not hold: extend it from its checkpoint or re-run"
        )
    dim = int(problem.dim)
    rows = _rows_of_seed(trace, int(seed), dim)
    _check_structure(rows, spec, n_init, budget)
    _check_origin(rows, problem, int(seed), n_init, dim)
    state = RunState(dim)
    state.X = rows[[f"x_{j}" for j in range(dim)]].to_numpy(dtype=np.float64).copy()
    state.y = rows["y"].to_numpy(dtype=np.float64).copy()
    state.iteration = rows["iteration"].astype(int).tolist()
    state.batch_index = rows["batch_index"].astype(int).tolist()
    for col in ("fit_seconds", "acq_seconds", "tr_length", "raasp_n_perturbed"):
        values = rows[col] if col in rows else pd.Series(np.nan, index=rows.index)
        setattr(state, col, values.astype(float).tolist())
    fallback = rows["fallback"] if "fallback" in rows else pd.Series("", index=rows.index)
    state.fallback = fallback.fillna("").astype(str).tolist()
    state.last_iteration = int(rows["iteration"].max())
    state.tr = _replay_trust_region(rows, spec, settings, n_init, dim)
    return state, trace_fingerprint(rows, dim)
