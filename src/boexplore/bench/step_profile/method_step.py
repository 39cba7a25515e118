"""One whole engine BO step (GP fit, then the method's proposal) profiled for any method.

The qKG profile (:mod:`.step`) starts from a fitted GP; a high-d step of the other methods is
mostly its fit, so this one profiles the step as ``bo/loop.py`` runs it: ``fit_gp`` with the
tier's settings (``gp_prior``, ``gp_fit``), then ``propose`` for each method on the same GP.
The fit is shared by every method of a state, so it is profiled once per (state, ``gp_fit``)
and a method's step is that fit plus its proposal.

State (:func:`engine_state`): the first ``n`` points of a released trace of the tier's
problem (its label and seed, the longest trace any method left, so a real BO state), padded
with the problem's scrambled Sobol points (seeded) where the trace is shorter; the row says
how many points came from each (``trace_rows``). Objective values come from the problem.

Counted per fit: marginal-likelihood evaluations (``ExactMarginalLogLikelihood.forward``
calls), L-BFGS-B iterations, the number of hyperparameters; per evaluation (at the fitted
hyperparameters, outside the profiler): CPU seconds with the gradient, flops counted from the
ops that run and by :func:`mll_flops`, and the wall time with 1 and 2 torch threads. Counted
per proposal: acquisition evaluations with and without gradient (the analytic AFs' forward
calls), and for TS the candidate-set size and sample paths.

Attribution: cProfile with the call-graph walk of :mod:`.rules`, phases of a whole step
(``STEP_PHASES``: GP fit, TS paths, raw-sample initial conditions, optimisation, rest).
"""

from __future__ import annotations

import contextlib
import copy
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boexplore.bench.step_profile.flops import count_flops
from boexplore.bench.step_profile.profilers import profile_call
from boexplore.bench.step_profile.rules import CATEGORIES, STEP_PHASES, Context, attribute

#: Repetitions of each per-evaluation timing (the median is reported).
EVAL_REPEATS = 5


def mll_flops(n: int, d: int) -> float:
    """Flops of one exact marginal-likelihood evaluation with its gradient (ARD kernel).

    Read off the ops GPyTorch 1.15 / linear_operator 0.6 run (checked against
    :func:`~boexplore.bench.step_profile.flops.count_flops` by the tests): the scaled squared
    distances as one product with ``p = d + 2`` columns and its two gradients (``6 n^2 p``),
    the Cholesky factorisation (``n^3 / 3``), the inverse the log-determinant's gradient
    forms by two triangular solves against the identity (``2 n^3``) and its product
    (``2 n^3``), and the solves for ``alpha`` (``4 n^2``)."""
    n_, p = float(n), float(d + 2)
    return 6.0 * n_ * n_ * p + 13.0 / 3.0 * n_**3 + 4.0 * n_ * n_


@dataclass
class Counters:
    """What a fit or a proposal called: evaluations, optimiser iterations, AF calls."""

    mll_evals: int = 0
    lbfgsb_iters: list[int] = field(default_factory=list)
    acq_grad: int = 0
    acq_raw: int = 0
    acq_points: int = 0


@contextlib.contextmanager
def counting() -> Iterator[Counters]:
    """Count marginal-likelihood evaluations, L-BFGS-B runs of the fit and AF forward calls."""
    import botorch.optim.core as core
    import torch
    from botorch.acquisition import AnalyticAcquisitionFunction
    from gpytorch.mlls import ExactMarginalLogLikelihood

    from boexplore.bo import fit_log

    seen = Counters()
    mll_forward = ExactMarginalLogLikelihood.forward
    af_call = AnalyticAcquisitionFunction.__call__
    # the L-BFGS-B entry points of the two fits: BoTorch's (through its timeout wrapper) and ours
    minimizers = {(core, "minimize_with_timeout"): core.minimize_with_timeout,
                  (fit_log, "minimize"): fit_log.minimize}  # fmt: skip

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen.mll_evals += 1
        return mll_forward(self, *args, **kwargs)

    def call(self: Any, X: Any, *args: Any, **kwargs: Any) -> Any:
        if torch.is_grad_enabled() and X.requires_grad:
            seen.acq_grad += 1
        else:
            seen.acq_raw += 1
        seen.acq_points += int(np.prod(X.shape[:-2])) if X.dim() > 2 else 1
        return af_call(self, X, *args, **kwargs)

    def minimizer(key: tuple[Any, str]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            result = minimizers[key](*args, **kwargs)
            seen.lbfgsb_iters.append(int(getattr(result, "nit", 0)))
            return result

        return run

    ExactMarginalLogLikelihood.forward = forward  # type: ignore[method-assign]
    AnalyticAcquisitionFunction.__call__ = call  # type: ignore[method-assign]
    for key in minimizers:
        setattr(key[0], key[1], minimizer(key))
    try:
        yield seen
    finally:
        ExactMarginalLogLikelihood.forward = mll_forward  # type: ignore[method-assign]
        AnalyticAcquisitionFunction.__call__ = af_call  # type: ignore[method-assign]
        for (module, name), original in minimizers.items():
            setattr(module, name, original)


def _problem(name: str, dim: int, options: Mapping[str, Any]) -> Any:
    from boexplore.problems import get_problem

    return get_problem(name, dim, **dict(options))


def engine_state(name: str, dim: int, n: int, seed: int, traces: Sequence[Path],
                 label: str | None, options: Mapping[str, Any] | None = None
                 ) -> tuple[np.ndarray, np.ndarray, int]:  # fmt: skip
    """``(X (n, d), y (n,), rows taken from a trace)`` of one state (module docstring)."""
    import pandas as pd

    from boexplore.bo.state import sobol_unit

    X = np.empty((0, dim))
    if label is not None:
        found = sorted(
            (f for root in traces for f in Path(root).glob(f"{label}/*/seed{seed}.parquet")),
            key=lambda f: -len(pd.read_parquet(f, columns=["y"])),
        )
        if found:
            t = pd.read_parquet(found[0])
            X = t[[f"x_{j}" for j in range(dim)]].to_numpy()[:n]
    k = len(X)
    if k < n:
        X = np.vstack([X, sobol_unit(dim, seed + 7919, 0, n - k)])
    y = np.asarray(_problem(name, dim, options or {}).evaluate(X), dtype=float).reshape(-1)
    return X, y, k


def _median_seconds(
    fn: Callable[[], Any],
    repeats: int = EVAL_REPEATS,
    clock: Callable[[], float] = time.process_time,
) -> float:
    """Median seconds of ``repeats`` calls of ``fn`` on ``clock`` (CPU time by default)."""
    out = []
    for _ in range(repeats):
        start = clock()
        fn()
        out.append(clock() - start)
    return float(np.median(out))


def mll_evaluation_costs(model: Any, repeats: int = EVAL_REPEATS) -> dict[str, float]:
    """One marginal-likelihood evaluation with its gradient at ``model``'s hyperparameters:
    CPU, counted and modelled flops, wall with 1 and 2 torch threads, and the CPU rate of the
    dense product of the dominant shape (``n x p`` by ``p x n``)."""
    import torch
    from gpytorch.mlls import ExactMarginalLogLikelihood

    model = copy.deepcopy(model)
    model.train()
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    X = model.train_inputs[0]
    n, d = int(X.shape[-2]), int(X.shape[-1])

    def evaluate() -> None:
        model.zero_grad()
        (-mll(model(*model.train_inputs), model.train_targets)).backward()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate()
        cpu = _median_seconds(evaluate, repeats)
        counted, _, unknown = count_flops(evaluate)
        threads = torch.get_num_threads()
        wall1 = _median_seconds(evaluate, repeats, time.perf_counter)
        torch.set_num_threads(2)
        try:
            wall2 = _median_seconds(evaluate, repeats, time.perf_counter)
        finally:
            torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(0)
    A = torch.rand(n, d + 2, dtype=torch.float64, generator=gen)
    gemm = min(_median_seconds(lambda: A @ A.T, 1) for _ in range(repeats))
    return {"mll_eval_cpu_s": cpu, "mll_flops_counted": counted, "mll_flops_model": mll_flops(n, d),
            "mll_gflops": counted / max(cpu, 1e-9) / 1e9,
            "gemm_gflops": 2.0 * n * n * (d + 2) / max(gemm, 1e-9) / 1e9,
            "mll_eval_wall_1t_s": wall1, "mll_eval_wall_2t_s": wall2,
            "uncounted_ops": " ".join(sorted(unknown))}  # fmt: skip


def _shares(seconds: Mapping[Context, float], prefix: str) -> dict[str, float]:
    row: dict[str, float] = {}
    for cat, slug in CATEGORIES.items():
        row[f"{prefix}s_{slug}"] = sum(v for (c, _), v in seconds.items() if c == cat)
    for phase, slug in STEP_PHASES.items():
        row[f"{prefix}s_phase_{slug}"] = sum(v for (_, p), v in seconds.items() if p == phase)
    return row


def profile_fit(X: np.ndarray, y: np.ndarray, gp_prior: str, gp_fit: str
                ) -> tuple[Any, dict[str, Any]]:  # fmt: skip
    """The fitted GP and the fit's row part: plain CPU, counts, profiled seconds, per-eval costs."""
    import torch

    from boexplore.bo.model import fit_gp
    from boexplore.bo.state import DTYPE, impute_nan

    X_t = torch.as_tensor(X, dtype=DTYPE)
    Y_t = torch.as_tensor(impute_nan(y), dtype=DTYPE).unsqueeze(-1)

    def fit() -> tuple[Any, Any]:
        return fit_gp(X_t, Y_t, prior=gp_prior, fit=gp_fit)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with counting() as seen:
            start = time.process_time()
            model, info = fit()
            cpu = time.process_time() - start
        (_, info_p), stats, profiled = profile_call(fit)
    row: dict[str, Any] = {
        "fit_cpu_s": cpu, "fit_profiled_cpu_s": profiled, "fit_status": info.status,
        "fit_attempts": info.attempts, "fit_mll": info.mll, "mll_evals": seen.mll_evals,
        "lbfgsb_iters": int(sum(seen.lbfgsb_iters)),
        "hyperparameters": int(sum(p.numel() for p in model.parameters())),
        "profiled_same_fit": bool(abs(info_p.mll - info.mll) <= 1e-9 * max(1.0, abs(info.mll))),
    }  # fmt: skip
    row |= _shares(attribute(stats), "fit_")
    row |= mll_evaluation_costs(model)
    return model, row


def _bounds(model: Any, X_t: Any, Y_t: Any, spec: Any) -> Any:
    """The search box of the step: the unit cube, or a fresh trust region around the best."""
    import torch

    from boexplore.bo.state import DTYPE
    from boexplore.bo.trust_region import TrustRegionState

    d = X_t.shape[-1]
    unit = torch.stack([torch.zeros(d, dtype=DTYPE), torch.ones(d, dtype=DTYPE)])
    if not spec.trust_region:
        return unit
    tr = TrustRegionState(dim=d, q=spec.q, best_value=float(Y_t.max()))
    ls = model.covar_module.lengthscale.detach().reshape(-1)
    return tr.bounds(X_t[int(torch.argmax(Y_t))], ls)


def profile_proposal(model: Any, X: np.ndarray, y: np.ndarray, method: str,
                     settings: Mapping[str, Any], seed: int) -> dict[str, Any]:  # fmt: skip
    """One proposal of ``method`` on ``model``: plain CPU, counts, profiled seconds, same point."""
    import torch

    from boexplore.bo.acquisition import propose
    from boexplore.bo.acquisition.thompson import default_ts_candidates
    from boexplore.bo.methods import parse_method
    from boexplore.bo.settings import BOSettings
    from boexplore.bo.state import DTYPE, impute_nan

    spec = parse_method(method)
    cfg = BOSettings.from_kwargs(**dict(settings))
    X_t = torch.as_tensor(X, dtype=DTYPE)
    Y_t = torch.as_tensor(impute_nan(y), dtype=DTYPE).unsqueeze(-1)
    bounds = _bounds(model, X_t, Y_t, spec)

    def step() -> Any:
        torch.manual_seed(seed)
        rng = np.random.default_rng(seed)
        return propose(spec, copy.deepcopy(model), X_t, Y_t, bounds, spec.q, cfg, rng, seed)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with counting() as seen:
            start = time.process_time()
            X_plain, flag = step()
            cpu = time.process_time() - start
        (X_prof, _), stats, profiled = profile_call(step)
    n_cand = 0
    if spec.base == "ts":
        n_cand = int(spec.params["candidates"]) or default_ts_candidates(X.shape[-1])
    row: dict[str, Any] = {
        "acq_cpu_s": cpu, "acq_profiled_cpu_s": profiled, "fallback": flag,
        "acq_evals_grad": seen.acq_grad, "acq_evals_raw": seen.acq_raw,
        "acq_points": seen.acq_points,
        "ts_candidates": n_cand, "same_point": bool(torch.equal(X_plain, X_prof)),
    }  # fmt: skip
    return row | _shares(attribute(stats), "acq_")


def _versions() -> dict[str, str]:
    import botorch
    import gpytorch
    import scipy
    import torch

    return {"torch": torch.__version__, "botorch": botorch.__version__,
            "gpytorch": gpytorch.__version__, "scipy": scipy.__version__}  # fmt: skip


def profile_state(label: str, name: str, dim: int, n: int, seed: int,
                  methods: Mapping[str, str], settings: Mapping[str, Any],
                  gp_fits: Sequence[str], traces: Sequence[Path],
                  options: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """One row per (``gp_fit``, method label) of one state: the shared fit, then each method's
    proposal on that fit (module docstring). ``settings``: the tier's ``bo`` settings of the
    methods (``gp_fit`` is taken from ``gp_fits``)."""
    from boexplore.numerics import cpu_info

    X, y, from_trace = engine_state(name, dim, n, seed, traces, label, options)
    base = {k: v for k, v in settings.items() if k != "gp_fit"}
    rows = []
    for gp_fit in gp_fits:
        model, fit_row = profile_fit(X, y, str(base.get("gp_prior", "dim_scaled")), gp_fit)
        for method_label, method in methods.items():
            acq_row = profile_proposal(model, X, y, method, {**base, "gp_fit": gp_fit}, seed)
            row: dict[str, Any] = {"problem": label, "name": name, "dim": dim, "n": n,
                                   "seed": seed, "trace_rows": from_trace, "gp_fit": gp_fit,
                                   "method": method_label, "method_spec": method}  # fmt: skip
            row |= fit_row | acq_row
            row["step_cpu_s"] = row["fit_cpu_s"] + row["acq_cpu_s"]
            info = cpu_info()
            row["cpu"] = f"{info['model']} (family {info['family']} model {info['model_number']})"
            rows.append(row | _versions())
    return rows
