"""Choose the next q points for a model-based method, with time guard and fallback.

Time guard: ``settings.acq_timeout`` seconds of *CPU time* is a hard limit (SIGPROF,
main thread only) on the whole acquisition step, so whether it fires does not depend on
other jobs sharing the machine (a wall-clock limit made a loaded machine take another
path); a wall-clock backstop of ``WALL_BACKSTOP_FACTOR`` times the limit (SIGALRM) still
ends a step that hangs without using CPU. No soft ``timeout_sec`` is passed
to ``optimize_acqf`` or to the TS polish: in BoTorch 0.18 it switches the
optimiser off its per-restart path and LogEI's proposals then fall 13-33
log-units below the acquisition maximum (docs/engine-fidelity.md). Any
exception in the acquisition step (including the hard timeout and
out-of-memory errors) falls back to uniform random points in the current
search box, logged as ``fallback="error:<ExceptionType>"``.

qKG (one-shot): ``batch_limit`` restarts are optimised together, 1 unless
``settings.kg_memory_cap_mb`` is set (then as many as the memory model of
:mod:`boexplore.bo.acquisition.kg_memory` fits under the cap). With
``settings.kg_warm_start`` the step keeps its full one-shot solution (candidate and
fantasy points) in a :class:`OneShotCarry` and the next step starts one restart from it,
next to ``num_restarts - 1`` fresh initial conditions from ``WARM_RAW_SHARE`` of the raw
samples (:func:`warm_ic_generator`).
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from botorch.acquisition import (
    AcquisitionFunction,
    OneShotAcquisitionFunction,
    qKnowledgeGradient,
)
from botorch.acquisition.predictive_entropy_search import qPredictiveEntropySearch
from botorch.models import SingleTaskGP
from botorch.optim import optimize_acqf
from botorch.optim.initializers import gen_one_shot_kg_initial_conditions, initialize_q_batch

from boexplore.bo.acquisition.factory import batch_mode, build_acqf
from boexplore.bo.acquisition.kg_memory import INIT_BATCH_LIMIT, kg_batch_limit
from boexplore.bo.acquisition.thompson import default_ts_candidates, thompson_batch
from boexplore.bo.candidates import raasp_pool, sobol_points
from boexplore.bo.methods import MethodSpec
from boexplore.bo.settings import BOSettings

LOG = logging.getLogger("boexplore.bo")
# qKG at n ~ 300 exhausts memory unless restarts / raw samples are evaluated one (8) at a time.
KG_OPTIONS: dict[str, bool | float | int | str] = {
    "batch_limit": 1,
    "init_batch_limit": INIT_BATCH_LIMIT,
}
# BoTorch's PES is not reliably differentiable (EP); it recommends finite differences.
PES_OPTIONS: dict[str, bool | float | int | str] = {"with_grad": False}


#: Share of the raw samples a warm-started qKG step draws for its fresh initial conditions.
WARM_RAW_SHARE = 0.5


@dataclass
class OneShotCarry:
    """The previous step's full one-shot solution (q + fantasies, d) of a qKG run."""

    tree: torch.Tensor | None = None


def warm_ic_generator(tree: torch.Tensor, raw_share: float = WARM_RAW_SHARE) -> Callable[..., Any]:
    """An ``ic_generator`` for ``optimize_acqf``: ``tree`` (clamped to the bounds) as the first
    restart, then ``num_restarts - 1`` one-shot initial conditions from ``raw_share`` of the
    raw samples (BoTorch's ``gen_one_shot_kg_initial_conditions``)."""

    def generate(
        acq_function: Any, bounds: torch.Tensor, q: int, num_restarts: int, raw_samples: int,
        **kwargs: Any,
    ) -> torch.Tensor:  # fmt: skip
        warm = torch.minimum(torch.maximum(tree.to(bounds), bounds[0]), bounds[1]).unsqueeze(0)
        if num_restarts <= 1:
            return warm
        fresh = gen_one_shot_kg_initial_conditions(
            acq_function, bounds, q, num_restarts - 1,
            max(num_restarts - 1, int(raw_samples * raw_share)), **kwargs,
        )  # fmt: skip
        return torch.cat([warm, fresh.to(warm)])

    return generate


def optimizer_options(
    acqf: AcquisitionFunction, q: int, settings: BOSettings
) -> dict[str, bool | float | int | str]:
    """The ``options`` ``optimize_acqf`` gets for ``acqf`` (qKG: memory-model batch limit)."""
    options: dict[str, bool | float | int | str] = {"maxiter": settings.acq_maxiter}
    if isinstance(acqf, OneShotAcquisitionFunction):
        options.update(KG_OPTIONS)
        if settings.kg_memory_cap_mb is not None:
            n, d = acqf.model.train_inputs[0].shape[-2:]
            fantasies = int(getattr(acqf, "num_fantasies", 1))
            options["batch_limit"] = kg_batch_limit(
                int(n),
                int(d),
                q,
                fantasies,
                settings.num_restarts,
                settings.kg_memory_cap_mb,
                raw_samples=settings.raw_samples,
            )
    if isinstance(acqf, qPredictiveEntropySearch):
        options.update(PES_OPTIONS)
    return options


#: A step that waits without using CPU is aborted after this many times ``acq_timeout`` (wall).
WALL_BACKSTOP_FACTOR = 10.0


class AcquisitionTimeout(BaseException):
    """Raised by the hard time guard of one acquisition step.

    A ``BaseException`` (like ``KeyboardInterrupt``): the signal can land inside library code
    that catches ``RuntimeError`` or ``Exception`` and re-raises something else (GPyTorch's
    kernel batch-shape check does), which would mislabel the fallback."""


@contextmanager
def hard_time_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``AcquisitionTimeout`` after ``seconds`` of process CPU time, or after
    ``WALL_BACKSTOP_FACTOR * seconds`` of wall time (no-op off the main thread or if None)."""
    usable = seconds is not None and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def _handler(signum: int, frame: object) -> None:
        clock = "CPU" if signum == signal.SIGPROF else "wall (backstop)"
        raise AcquisitionTimeout(
            f"acquisition step exceeded the hard limit of {seconds:.1f} s ({clock} time)"
        )

    previous_prof = signal.signal(signal.SIGPROF, _handler)
    previous_alarm = signal.signal(signal.SIGALRM, _handler)
    signal.setitimer(signal.ITIMER_PROF, float(seconds))  # type: ignore[arg-type]
    signal.setitimer(signal.ITIMER_REAL, WALL_BACKSTOP_FACTOR * float(seconds))  # type: ignore[arg-type]
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0.0)
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGPROF, previous_prof)
        signal.signal(signal.SIGALRM, previous_alarm)


def _raasp_initial_conditions(
    acqf: AcquisitionFunction,
    pool: torch.Tensor,
    q: int,
    settings: BOSettings,
    rng: np.random.Generator,
) -> torch.Tensor:
    """Pick ``num_restarts`` starting q-batches from a RAASP/uniform pool (Boltzmann selection)."""
    q_aug = (
        acqf.get_augmented_q_batch_size(q) if isinstance(acqf, OneShotAcquisitionFunction) else q
    )
    n_raw = settings.raw_samples
    if q_aug == 1:
        raw = pool[:n_raw].unsqueeze(1)
    else:
        idx = rng.integers(0, pool.shape[0], size=(n_raw, q_aug))
        raw = pool[torch.as_tensor(idx, device=pool.device)]
    chunk = 8 if isinstance(acqf, OneShotAcquisitionFunction) else 256
    with torch.no_grad():
        vals = torch.cat([acqf(b) for b in raw.split(chunk)])
    ics, _ = initialize_q_batch(raw, vals, n=min(settings.num_restarts, raw.shape[0]))
    return ics


def _optimize(
    acqf: AcquisitionFunction,
    bounds: torch.Tensor,
    q: int,
    settings: BOSettings,
    pool: torch.Tensor | None,
    rng: np.random.Generator,
    carry: OneShotCarry | None = None,
) -> torch.Tensor:
    options = optimizer_options(acqf, q, settings)
    kwargs: dict = {}
    warm = settings.kg_warm_start and carry is not None and isinstance(acqf, qKnowledgeGradient)
    if pool is not None:
        kwargs["batch_initial_conditions"] = _raasp_initial_conditions(acqf, pool, q, settings, rng)
    else:
        kwargs["raw_samples"] = settings.raw_samples
        shape = (acqf.get_augmented_q_batch_size(q), bounds.shape[-1]) if warm else None
        if warm and carry.tree is not None and tuple(carry.tree.shape) == shape:  # type: ignore[union-attr]
            kwargs["ic_generator"] = warm_ic_generator(carry.tree)  # type: ignore[union-attr]
    X, _ = optimize_acqf(
        acqf,
        bounds=bounds,
        q=q,
        num_restarts=settings.num_restarts,
        options=options,
        return_full_tree=warm,
        **kwargs,
    )
    if warm:
        carry.tree = X.detach().clone()  # type: ignore[union-attr]
        X = acqf.extract_candidates(X)  # type: ignore[union-attr]
    return X.detach().reshape(q, -1)


def _propose_af(
    spec: MethodSpec,
    model: SingleTaskGP,
    X: torch.Tensor,
    y_model: torch.Tensor,
    bounds: torch.Tensor,
    q: int,
    settings: BOSettings,
    rng: np.random.Generator,
    seed: int,
    stats: dict[str, float],
    carry: OneShotCarry | None = None,
) -> torch.Tensor:
    lower, upper = bounds[0], bounds[1]

    def pool(n: int) -> torch.Tensor:
        return raasp_pool(
            X, y_model, n, lower, upper, rng, seed,
            n_best=settings.raasp_n_best,
            fraction=settings.raasp_fraction,
            prob_numerator=settings.raasp_prob_numerator,
            max_prob=settings.raasp_max_prob,
            stats=stats,
        )  # fmt: skip

    if spec.base == "ts":
        n_cand = int(spec.params["candidates"]) or default_ts_candidates(X.shape[-1])
        return thompson_batch(
            model, X, y_model, bounds, q, n_cand,
            raasp=spec.raasp, polish=bool(spec.params["polish"]),
            polish_top=settings.ts_polish_top, rng=rng, seed=seed,
            perturb=bool(spec.params["perturb"]),
            raasp_n_best=settings.raasp_n_best,
            raasp_prob_numerator=settings.raasp_prob_numerator,
            raasp_max_prob=settings.raasp_max_prob, stats=stats,
        )  # fmt: skip
    candidate_set = None
    if spec.base in ("mes", "gibbon"):
        n_c = int(spec.params["candidates"])
        candidate_set = pool(n_c) if spec.raasp else sobol_points(n_c, lower, upper, seed)
    best_f = float(y_model.max())
    acqf = build_acqf(spec, model, best_f, bounds, candidate_set, settings, seed)
    ic_pool = pool(settings.raw_samples) if spec.raasp else None
    if batch_mode(spec) == "joint":
        return _optimize(acqf, bounds, q, settings, ic_pool, rng, carry)
    chosen: list[torch.Tensor] = []
    for _ in range(q):
        if chosen:
            acqf.set_X_pending(torch.cat(chosen))
        chosen.append(_optimize(acqf, bounds, 1, settings, ic_pool, rng))
    return torch.cat(chosen)


def propose(
    spec: MethodSpec,
    model: SingleTaskGP,
    X: torch.Tensor,
    y_model: torch.Tensor,
    bounds: torch.Tensor,
    q: int,
    settings: BOSettings,
    rng: np.random.Generator,
    seed: int,
    stats: dict[str, float] | None = None,
    carry: OneShotCarry | None = None,
) -> tuple[torch.Tensor, str]:
    """Next ``q`` points (q, d) in ``bounds`` and a fallback flag ("" when none happened).

    ``y_model`` are the (NaN-imputed) observations the model was fitted on.
    ``stats`` (optional) receives diagnostics of the step, e.g. ``raasp_n_perturbed``.
    ``carry`` (optional) holds the qKG one-shot solution between steps
    (``settings.kg_warm_start``); it is updated in place.
    """
    stats = {} if stats is None else stats
    try:
        with hard_time_limit(settings.acq_timeout):
            X_new = _propose_af(
                spec, model, X, y_model, bounds, q, settings, rng, seed, stats, carry
            )
        if not torch.isfinite(X_new).all():
            raise FloatingPointError("acquisition optimiser returned non-finite points")
        flag = ""
    except (Exception, MemoryError, AcquisitionTimeout) as exc:
        LOG.warning(
            "acquisition failed (%s: %s); falling back to random points", type(exc).__name__, exc
        )
        lower, upper = bounds[0], bounds[1]
        X_new = lower + (upper - lower) * torch.as_tensor(
            rng.random((q, X.shape[-1])), dtype=X.dtype, device=X.device
        )
        flag = f"error:{type(exc).__name__}"
    lower, upper = bounds[0], bounds[1]
    return torch.minimum(torch.maximum(X_new, lower), upper), flag
