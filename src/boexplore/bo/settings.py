"""Run settings for the BO loop (everything that is not the method spec)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from boexplore.bo.device import check_device_name
from boexplore.bo.model_settings import model_setting_errors


@dataclass
class BOSettings:
    """Tunable settings; pass any of them as keyword arguments to ``run_bo``.

    num_restarts / raw_samples: optimize_acqf restarts and raw samples.
    acq_maxiter: L-BFGS-B iterations per restart of the AF optimiser.
    mc_samples: MC samples of q-batch acquisition functions.
    warm_start: start each GP fit from the previous iteration's hyperparameters
        (off by default: cold fits are what plain BoTorch does; warm starts lowered
        EI/PI exploration on Ackley-2, see docs/engine-fidelity.md).
    fit_retries: extra fit attempts (fresh hyperparameters, larger jitter).
    refit_every: optimise the GP hyperparameters every k-th BO iteration (1 = every
        iteration, plain BoTorch). In between, the GP is re-conditioned on all data with
        the last fitted hyperparameters (exact posterior, no optimisation), which removes
        the fit cost of k - 1 of k iterations (issue 13; docs/bo-speed.md).
    fit_ftol: relative tolerance of the L-BFGS-B hyperparameter fit (None = BoTorch's
        default); a looser value only pays off with warm starts.
    acq_timeout: hard limit in CPU seconds on one acquisition step (None = no limit; CPU
        time so that a loaded machine does not change the trace, with a wall-clock
        backstop at 10x for a step that hangs without computing). The
        step is aborted (SIGPROF / SIGALRM, main thread) and replaced by uniform random points in
        the search box (trace ``fallback = "error:AcquisitionTimeout"``). No soft limit
        is passed to ``optimize_acqf``: in BoTorch 0.18 that changes its optimisation
        path and returns points far below the acquisition maximum.
    raasp_*: RAASP pool (number of parents, fraction of perturbed rows, 20/d rule
        numerator, cap on the per-coordinate perturbation probability so that at low d
        a candidate keeps part of its parent: ``p = min(numerator / d, max_prob)``).
    ts_polish_top: number of best TS candidates polished by L-BFGS per path.
    tr_*: trust-region tolerances (0 -> TuRBO default).
    pes_max_dim: PES is optimised by finite differences (BoTorch's advice: its EP
        approximation is not reliably differentiable), so its cost grows ~linearly
        in d on top of the EP loop; above this dimension ``run_bo`` raises ValueError.
    kg_warm_start: qKG starts one restart from the previous step's full one-shot solution
        (candidate + fantasy points) and draws its other initial conditions from half the
        raw samples (off by default: not shown to keep the knowledge gradient,
        docs/kg-memory.md).
    kg_fantasy_cache: qKG's fantasy models keep the mean cache GPyTorch computes for them by
        block elimination instead of re-factorising the conditioned kernel matrix once per
        fantasy at every evaluation (``bo/acquisition/fantasy_cache.py``; exact to rounding,
        not the same bits; off by default, so released qKG traces keep their identity).
    kg_memory_cap_mb: optimise as many qKG restarts together as the memory model
        (``bo.acquisition.kg_memory``) fits under this many MB (None = one at a time).
    gp_prior: "dim_scaled" (BoTorch's default since 0.12: RBF kernel, dimension-scaled
        LogNormal lengthscale prior) or "gamma" (its default before: scaled Matern-5/2,
        Gamma priors); ``bo/model.py``. Left out of a run's identity at its default, so the
        traces made before the setting existed keep their identity.
    gp_fit: "botorch" (default: BoTorch's ``fit_gpytorch_mll``, L-BFGS-B over the raw
        parameters) or "log" (the same marginal likelihood maximised over log lengthscales,
        noise and outputscale, ``bo/fit_log.py``: 10-20x fewer evaluations at d = 100-180,
        docs/step-profile.md). Left out of a run's identity at its default.
    gp_kernel: "prior" (default: the family gp_prior brings, RBF or Matern-5/2), "matern12",
        "matern32", "matern52" or "rbf" (ARD, under gp_prior's lengthscale prior).
    gp_lengthscale: "fitted" (default) or a number c: every lengthscale fixed at c * sqrt(d)
        under gp_prior "dim_scaled", at c under "gamma" (the box width is 1).
    gp_noise: "fitted" (default) or a number c: the noise variance fixed at c times the
        standardised outcome's variance.
    gp_outputscale: "prior" (default: none under "dim_scaled", fitted under "gamma"),
        "fitted", or a number c (fixed at c). The rules of all four are in ``bo/gp_spec.py``;
        each is left out of a run's identity at its default.
    device: "cpu" (default) or "cuda": where the GP fit and the acquisition run, float64 on
        both (``bo/device.py``); results come back to the CPU for the trace. Left out of a
        run's identity at "cpu", so CPU traces and checkpoints keep theirs.
    clock: "wall" (default) or "cpu": what fit_seconds / acq_seconds measure; CPU time
        (``time.process_time``) is robust to other jobs sharing the machine.
    num_threads: torch threads (None leaves torch's setting alone).
    """

    num_restarts: int = 10
    raw_samples: int = 512
    acq_maxiter: int = 200
    mc_samples: int = 128
    warm_start: bool = False
    fit_retries: int = 2
    refit_every: int = 1
    fit_ftol: float | None = None
    acq_timeout: float | None = None
    raasp_n_best: int = 5
    raasp_fraction: float = 0.5
    raasp_prob_numerator: float = 20.0
    raasp_max_prob: float = 0.5
    ts_polish_top: int = 3
    tr_success_tolerance: int = 3
    tr_failure_tolerance: int = 0
    pes_max_dim: int = 20
    kg_warm_start: bool = False
    kg_fantasy_cache: bool = False
    kg_memory_cap_mb: float | None = None
    gp_prior: str = "dim_scaled"
    gp_fit: str = "botorch"
    gp_kernel: str = "prior"
    gp_lengthscale: str | float = "fitted"
    gp_noise: str | float = "fitted"
    gp_outputscale: str | float = "prior"
    device: str = "cpu"
    clock: str = "wall"
    num_threads: int | None = None

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> BOSettings:
        """Build settings; an unknown key raises ``ValueError`` listing the valid ones."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise ValueError(f"unknown BO setting(s) {unknown}; valid settings: {sorted(names)}")
        out = cls(**kwargs)
        for key in ("num_restarts", "raw_samples", "mc_samples", "acq_maxiter", "refit_every"):
            if getattr(out, key) < 1:
                raise ValueError(f"BO setting {key} must be >= 1, got {getattr(out, key)}")
        if out.gp_prior not in ("dim_scaled", "gamma"):
            raise ValueError(
                f"BO setting gp_prior must be 'dim_scaled' or 'gamma', got {out.gp_prior!r}"
            )
        if out.gp_fit not in ("botorch", "log"):
            raise ValueError(f"BO setting gp_fit must be 'botorch' or 'log', got {out.gp_fit!r}")
        errors = model_setting_errors(out.to_dict())
        if errors:
            raise ValueError("; ".join(errors))
        check_device_name(out.device)
        if out.clock not in ("wall", "cpu"):
            raise ValueError(f"BO setting clock must be 'wall' or 'cpu', got {out.clock!r}")
        if not 0.0 < out.raasp_max_prob <= 1.0:
            raise ValueError(
                f"BO setting raasp_max_prob must be in (0, 1], got {out.raasp_max_prob}"
            )
        if out.fit_ftol is not None and not 0.0 < out.fit_ftol < 1.0:
            raise ValueError(f"BO setting fit_ftol must be in (0, 1), got {out.fit_ftol}")
        if out.kg_memory_cap_mb is not None and out.kg_memory_cap_mb <= 0:
            raise ValueError(f"BO setting kg_memory_cap_mb must be > 0, got {out.kg_memory_cap_mb}")
        if out.acq_timeout is not None and out.acq_timeout <= 0:
            raise ValueError(f"BO setting acq_timeout must be > 0, got {out.acq_timeout}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (for checkpoints / logs)."""
        return asdict(self)
