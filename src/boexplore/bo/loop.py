"""The BO loop: initial Sobol design, then fit -> propose -> evaluate, with checkpoints.

Determinism: iteration ``i`` seeds torch and a numpy Generator from
``SeedSequence([seed, i])``; the initial design is the first ``n_init`` points
of a scrambled Sobol sequence seeded with ``seed`` (shared by all methods for
the same seed). So (problem, method, seed, settings) fixes the trace, except
for ``fit_seconds``/``acq_seconds`` (wall time) and runs where the acquisition
time guard fired (``fallback`` column).

Mechanism columns: ``tr_length`` is the trust-region side length (in units of
the normalised lengthscales) used to propose each point, NaN for runs without
``+tr``; ``raasp_n_perturbed`` is the mean number of coordinates the RAASP
candidates of that iteration replaced, NaN without ``+raasp``. Together they
show whether the trust region shrinks and RAASP stays local at a given budget.

Resuming: the loop checkpoints after every iteration (``bo/checkpoint.py``: arrays +
JSON, checksummed, atomic, previous one kept). A run started with an existing
checkpoint continues after its last iteration and ends with the same trace an
uninterrupted run gives -- only when the checkpoint's identity (``bo/identity.py``:
problem instance, method, settings, seed, n_init, engine) equals the run's. A
checkpoint of another identity, a corrupt one, or one that is not a prefix of this
run (more evaluations than the budget; a last batch cut short by a smaller budget)
is moved aside with one log line and the run starts afresh. A larger budget than
the checkpoint's continues it.

NaN policy: non-finite objective values are kept as NaN in the trace ``y``
column; the GP sees them imputed with the worst finite value observed so far
(0 if none is finite yet); ``best_so_far`` ignores NaN (NaN until the first
finite value); a batch whose values are all NaN counts as a trust-region
failure.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from boexplore.bo.acquisition import propose
from boexplore.bo.acquisition.proposal import OneShotCarry
from boexplore.bo.checkpoint import Checkpoint, load_resumable, save_checkpoint
from boexplore.bo.device import run_device
from boexplore.bo.gp_spec import GPSpec
from boexplore.bo.identity import (
    identity_diff,
    identity_sha256,
    problem_digest,
    run_identity,
)
from boexplore.bo.methods import MethodSpec, parse_method
from boexplore.bo.model import condition_gp, fit_gp, hyper_state
from boexplore.bo.model_settings import MODEL_DEFAULTS
from boexplore.bo.settings import BOSettings
from boexplore.bo.state import DTYPE, RunState, impute_nan, iteration_seed, sobol_unit
from boexplore.bo.trust_region import TrustRegionState

LOG = logging.getLogger("boexplore.bo")

Callback = Callable[[int, pd.DataFrame], None]


def _lengthscales(model: Any) -> torch.Tensor | None:
    ls = getattr(getattr(model, "covar_module", None), "lengthscale", None)
    return None if ls is None else ls.detach().reshape(-1)


def _trace(
    state: RunState,
    problem: Any,
    spec_str: str,
    method_label: str,
    problem_label: str,
    seed: int,
    n_init: int,
) -> pd.DataFrame:
    """Trace table in the column order of docs/interfaces.md (+ ``fallback``)."""
    n, d = state.X.shape
    y = state.y
    best = np.fmax.accumulate(np.where(np.isfinite(y), y, np.nan)) if n else y
    opt = getattr(problem, "optimum_value", None)
    regret = (float(opt) - best) if opt is not None else np.full(n, np.nan)
    cols: dict[str, Any] = {
        "problem": [problem_label] * n,
        "dim": np.full(n, d, dtype=np.int64),
        "method": [method_label] * n,
        "method_spec": [spec_str] * n,
        "seed": np.full(n, seed, dtype=np.int64),
        "eval_index": np.arange(n, dtype=np.int64),
        "iteration": np.asarray(state.iteration, dtype=np.int64),
        "batch_index": np.asarray(state.batch_index, dtype=np.int64),
        "is_initial": np.asarray(state.iteration, dtype=np.int64) == 0,
    }
    for j in range(d):
        cols[f"x_{j}"] = state.X[:, j]
    cols["y"] = y
    cols["best_so_far"] = best
    cols["regret"] = regret
    cols["fit_seconds"] = np.asarray(state.fit_seconds, dtype=float)
    cols["acq_seconds"] = np.asarray(state.acq_seconds, dtype=float)
    cols["fallback"] = list(state.fallback)
    cols["tr_length"] = np.asarray(state.tr_length, dtype=float)
    cols["raasp_n_perturbed"] = np.asarray(state.raasp_n_perturbed, dtype=float)
    return pd.DataFrame(cols)


def _evaluate(problem: Any, X: np.ndarray) -> np.ndarray:
    y = np.asarray(problem.evaluate(X), dtype=float).reshape(-1)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"problem returned {y.shape[0]} values for {X.shape[0]} points")
    return y


#: Settings added after runs had been started: left out of a run's identity at these (default)
#: values, so checkpoints and provenance written before they existed stay valid.
IDENTITY_IF_SET: dict[str, Any] = {
    "kg_warm_start": False,
    "kg_fantasy_cache": False,
    "kg_memory_cap_mb": None,
    "gp_prior": "dim_scaled",
    "gp_fit": "botorch",
    **MODEL_DEFAULTS,
    "device": "cpu",
}


def settings_identity(cfg: BOSettings) -> dict[str, Any]:
    """The settings part of a run's identity: every setting but ``num_threads``, those of
    ``IDENTITY_IF_SET`` only where they differ from the value listed there."""
    return {
        k: v
        for k, v in cfg.to_dict().items()
        if k != "num_threads" and not (k in IDENTITY_IF_SET and v == IDENTITY_IF_SET[k])
    }


def refit_due(iteration: int, refit_every: int) -> bool:
    """Whether BO iteration ``iteration`` (1, 2, ...) optimises the GP hyperparameters.

    Iterations 1, 1 + k, 1 + 2k, ... refit; depends only on the iteration number, so a
    resumed run follows the same schedule.
    """
    return refit_every <= 1 or (iteration - 1) % refit_every == 0


def _step(
    spec: MethodSpec,
    state: RunState,
    settings: BOSettings,
    seed: int,
    it: int,
    q_it: int,
    tr: TrustRegionState | None,
    stats: dict[str, float],
) -> tuple[np.ndarray, float, float, str]:
    """One iteration's proposal: (X_new, fit_seconds, acq_seconds, fallback flag).

    ``stats`` receives the step's diagnostics (``raasp_n_perturbed``). A model-based step
    fits and optimises on ``settings.device`` (``Tensor.to`` returns the tensor itself on the
    CPU, so the CPU path is unchanged); what it returns and keeps is on the CPU.
    """
    d = state.X.shape[1]
    clock = time.process_time if settings.clock == "cpu" else time.perf_counter
    ss = iteration_seed(seed, it)
    it_seed = int(ss.generate_state(1)[0])
    torch.manual_seed(it_seed)
    rng = np.random.default_rng(ss)
    X_t = torch.as_tensor(state.X, dtype=DTYPE)
    y_imp = impute_nan(state.y)
    center = X_t[int(np.argmax(y_imp))]
    unit = torch.stack([torch.zeros(d, dtype=DTYPE), torch.ones(d, dtype=DTYPE)])
    if not spec.model_based:
        t0 = clock()
        bounds = tr.bounds(center, None) if tr is not None else unit
        if spec.base == "sobol":
            u = sobol_unit(d, seed, len(state.y), q_it)
        else:
            u = rng.random((q_it, d))
        lo, hi = bounds[0].numpy(), bounds[1].numpy()
        return lo + (hi - lo) * u, 0.0, clock() - t0, ""
    device = torch.device(settings.device)
    X_t, center, unit = X_t.to(device), center.to(device), unit.to(device)
    Y_t = torch.as_tensor(y_imp, dtype=DTYPE).unsqueeze(-1).to(device)
    last = None
    if state.warm is not None:
        last = {k: torch.as_tensor(v, dtype=DTYPE).to(device) for k, v in state.warm.items()}
    t0 = clock()
    flags: list[str] = []
    if last is not None and not refit_due(it, settings.refit_every):
        model = condition_gp(X_t, Y_t, last, settings.gp_prior, GPSpec.from_settings(settings))
    else:
        model, info = fit_gp(
            X_t,
            Y_t,
            warm_state=last if settings.warm_start else None,
            max_retries=settings.fit_retries,
            ftol=settings.fit_ftol,
            prior=settings.gp_prior,
            fit=settings.gp_fit,
            spec=GPSpec.from_settings(settings),
        )
        state.warm = {k: v.cpu().numpy() for k, v in hyper_state(model).items()}
        if info.status != "ok":
            flags.append(f"fit_{info.status}")
    fit_s = clock() - t0
    t0 = clock()
    bounds = tr.bounds(center, _lengthscales(model)) if tr is not None else unit
    carry = OneShotCarry(None if state.kg_tree is None else torch.as_tensor(state.kg_tree))
    X_new, flag = propose(spec, model, X_t, Y_t, bounds, q_it, settings, rng, it_seed, stats, carry)
    acq_s = clock() - t0
    if carry.tree is not None:
        state.kg_tree = carry.tree.cpu().numpy()
    if flag:
        flags.append(flag)
    return X_new.cpu().numpy(), fit_s, acq_s, ";".join(flags)


def _reject(
    ckpt: Checkpoint, identity: dict[str, Any], identity_hash: str, budget: int, q: int
) -> tuple[str, str] | None:
    """Why ``ckpt`` cannot continue this run -- (tag, reason) -- or None when it can."""
    meta = ckpt.meta
    if meta.get("identity_sha256") != identity_hash:
        keys = identity_diff(meta.get("identity") or {}, identity) or ["identity"]
        return "identity", f"it belongs to a different run (differs in: {', '.join(keys)})"
    try:
        state = RunState.from_arrays(ckpt.arrays, meta["state"])
    except (KeyError, TypeError, ValueError) as exc:
        return "invalid", f"its state is incomplete ({type(exc).__name__}: {exc})"
    n = len(state.y)
    if n > budget:
        return "budget", f"it holds {n} evaluations, more than the budget {budget}"
    if n < budget and any(b != q for b in state.batch_sizes()):
        return "budget", (
            f"its last batch was cut to fit budget {meta.get('budget')}, so it is not a "
            f"prefix of a budget-{budget} run"
        )
    return None


def run_bo(
    problem: Any,
    method_spec: str,
    seed: int,
    budget: int,
    n_init: int,
    checkpoint: Path | None = None,
    progress: bool = False,
    method_label: str | None = None,
    problem_label: str | None = None,
    callback: Callback | None = None,
    problem_sha256: str | None = None,
    extend_from: pd.DataFrame | None = None,
    **settings: Any,
) -> pd.DataFrame:
    """Run BO of ``method_spec`` on ``problem`` for ``budget`` evaluations (incl. ``n_init`` initial).

    ``problem`` needs ``dim``, ``evaluate(X_unit) -> y`` and ``optimum_value``
    (and ``name`` unless ``problem_label`` is given). ``checkpoint``: file to
    resume from / save to after each iteration. ``callback(iteration, trace)``
    runs after each checkpoint (e.g. to stop a run). ``problem_sha256``: the
    instance's identity in the checkpoint (default: sha256 of ``problem.to_spec()``;
    the workflow passes the problem file's digest). ``extend_from``: a trace holding this
    run's first evaluations (rows of other seeds are ignored); the run continues from it
    (``bo/extend.py``) unless its checkpoint is further on. ``settings``: fields of
    ``BOSettings``. Returns the trace (one row per evaluation).
    """
    spec = parse_method(method_spec)
    if int(seed) < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    cfg = BOSettings.from_kwargs(**settings)
    if not spec.model_based:
        unused = [k for k, v in MODEL_DEFAULTS.items() if getattr(cfg, k) != v]
        if unused:
            raise ValueError(
                f"{spec.base} fits no model: the model setting(s) {unused} make no sense for it"
            )
    run_device(cfg.device)  # cuda without a GPU fails here, before anything is written
    if cfg.num_threads is not None:
        torch.set_num_threads(int(cfg.num_threads))
    d = int(problem.dim)
    if n_init < 1:
        raise ValueError(f"n_init must be >= 1, got {n_init}")
    if budget < n_init:
        raise ValueError(f"budget ({budget}) must be >= n_init ({n_init})")
    if spec.base == "pes" and d > cfg.pes_max_dim:
        raise ValueError(
            f"pes is limited to d <= pes_max_dim={cfg.pes_max_dim} (got d={d}): it is optimised "
            "by finite differences and takes minutes per iteration at higher d; "
            "pass pes_max_dim=... to run it anyway"
        )
    problem_label = problem_label or str(getattr(problem, "name", "problem"))
    method_label = method_label or spec.label()
    identity = run_identity(
        problem_sha256 or problem_digest(problem),
        d,
        spec.canonical(),
        seed,
        n_init,
        settings_identity(cfg),
    )
    state = RunState(d)
    if extend_from is not None:
        from boexplore.bo.extend import state_from_trace

        state, source = state_from_trace(extend_from, problem, spec, cfg, seed, n_init, budget)
        identity["extended_from"] = source
        LOG.info("extending from a trace of %d evaluations (%s)", len(state.y), source[:12])
    identity = json.loads(json.dumps(identity))  # as stored: tuples -> lists
    identity_hash = identity_sha256(identity)

    if checkpoint is not None:
        stored = load_resumable(
            Path(checkpoint), lambda ck: _reject(ck, identity, identity_hash, budget, spec.q)
        )
        if stored is not None:
            state = RunState.from_arrays(stored.arrays, stored.meta["state"])
            LOG.info("resuming from %s after iteration %d", checkpoint, state.last_iteration)

    def save() -> None:
        if checkpoint is not None:
            arrays, scalars = state.to_arrays()
            meta = {
                "identity": identity,
                "identity_sha256": identity_hash,
                "budget": int(budget),
                "problem": problem_label,
                "method": method_label,
                "state": scalars,
            }
            save_checkpoint(Path(checkpoint), arrays, meta)

    def report(it: int) -> None:
        trace = _trace(state, problem, method_spec, method_label, problem_label, seed, n_init)
        if progress:
            best = trace["best_so_far"].iloc[-1]
            print(
                f"[{problem_label} d={d} {method_label} seed={seed}] iter {it:4d} "
                f"n={len(state.y):5d} best={best:.6g} fit={state.fit_seconds[-1]:.2f}s "
                f"acq={state.acq_seconds[-1]:.2f}s {state.fallback[-1]}",
                file=sys.stderr,
                flush=True,
            )
        if callback is not None:
            callback(it, trace)

    if state.last_iteration < 0:
        X0 = sobol_unit(d, seed, 0, n_init)
        state.append(X0, _evaluate(problem, X0), 0, 0.0, 0.0, "")
        save()
        report(0)

    q = spec.q
    while len(state.y) < budget:
        it = state.last_iteration + 1
        tr = None
        if spec.trust_region:
            if state.tr is None:
                finite = state.y[np.isfinite(state.y)]
                tr = TrustRegionState(
                    dim=d,
                    q=q,
                    success_tolerance=cfg.tr_success_tolerance,
                    failure_tolerance=cfg.tr_failure_tolerance,
                    best_value=float(finite.max()) if finite.size else -math.inf,
                )
            else:
                tr = TrustRegionState.from_dict(state.tr)
        q_it = min(q, budget - len(state.y))
        stats: dict[str, float] = {}
        X_new, fit_s, acq_s, flag = _step(spec, state, cfg, seed, it, q_it, tr, stats)
        y_new = _evaluate(problem, X_new)
        tr_length = math.nan
        if tr is not None:
            tr_length = tr.length
            finite = y_new[np.isfinite(y_new)]
            tr.update(float(finite.max()) if finite.size else float("nan"))
            state.tr = tr.to_dict()
        n_pert = stats.get("raasp_n_perturbed", math.nan) if spec.raasp else math.nan
        state.append(X_new, y_new, it, fit_s, acq_s, flag, tr_length, n_pert)
        save()
        report(it)
    return _trace(state, problem, method_spec, method_label, problem_label, seed, n_init)
