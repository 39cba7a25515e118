"""GP surrogate: BoTorch's SingleTaskGP under one of two priors, fitted robustly.

``gp_prior = "dim_scaled"`` (default) is BoTorch's default since 0.12 (Hvarfner et al.
dimension-scaled LogNormal lengthscale prior, RBF ARD kernel, LogNormal noise prior);
``"gamma"`` is its default before 0.12 (scaled Matern-5/2 ARD kernel, Gamma(3, 6)
lengthscale, Gamma(2, 0.15) outputscale and Gamma(1.1, 0.05) noise priors), built by the
helpers BoTorch still ships (``botorch.models.utils.gpytorch_modules``). Which one paper 1
used is not known, so it is a setting. Both use a ``Standardize`` outcome transform;
inputs are already in ``[0,1]^d``.

The kernel family and fixed hyperparameters (``gp_kernel``, ``gp_lengthscale``, ``gp_noise``,
``gp_outputscale``) come as a ``GPSpec`` (``bo/gp_spec.py``); at their defaults (``GPSpec.plain``)
the model is built exactly as above, by the same calls.

``gp_fit = "botorch"`` (default) maximises the marginal likelihood with BoTorch's
``fit_gpytorch_mll`` over the raw parameters; ``"log"`` maximises the same objective over log
hyperparameters (``bo/fit_log.py``), 10-20x fewer evaluations at d = 100-180.

Warm start: the raw hyperparameters of the previous iteration's fit are loaded
before L-BFGS starts (outcome-transform buffers are *not* copied, they belong
to the new data). A failed fit is retried (fresh hyperparameters, larger
Cholesky jitter); if every attempt fails, the model keeps its initial hyperparameters
(the prior mode under ``dim_scaled``; GPyTorch's defaults for the lengthscale under
``gamma``) and the failure is reported in ``FitInfo.status``.
"""

from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass

import gpytorch
import torch
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.models.utils.gpytorch_modules import (
    get_gaussian_likelihood_with_gamma_prior,
    get_matern_kernel_with_gamma_prior,
)
from gpytorch.mlls import ExactMarginalLogLikelihood

from boexplore.bo.fit_log import fit_log_space
from boexplore.bo.gp_spec import GPSpec, build_model

LOG = logging.getLogger("boexplore.bo")

HyperState = dict[str, torch.Tensor]

#: GP priors a run can use (``BOSettings.gp_prior``): BoTorch's default since 0.12, and before.
GP_PRIORS: tuple[str, ...] = ("dim_scaled", "gamma")
#: How the marginal likelihood is maximised (``BOSettings.gp_fit``): BoTorch's fit over raw
#: parameters, or the same objective over log hyperparameters (``bo/fit_log.py``).
GP_FITS: tuple[str, ...] = ("botorch", "log")


@dataclass
class FitInfo:
    """What happened during a fit: seconds, final MLL, status (``ok``/``retry``/``failed``)."""

    seconds: float
    mll: float
    status: str
    attempts: int


def _new_model(
    X: torch.Tensor, Y: torch.Tensor, prior: str = "dim_scaled", spec: GPSpec | None = None
) -> SingleTaskGP:
    if spec is not None and not spec.plain:
        if spec.prior != prior:
            raise ValueError(f"GP spec prior {spec.prior!r} differs from prior {prior!r}")
        return build_model(X, Y, spec)
    if prior == "dim_scaled":
        return SingleTaskGP(X, Y)
    if prior == "gamma":
        return SingleTaskGP(
            X,
            Y,
            likelihood=get_gaussian_likelihood_with_gamma_prior(),
            covar_module=get_matern_kernel_with_gamma_prior(ard_num_dims=X.shape[-1]),
        )
    raise ValueError(f"unknown GP prior {prior!r}; valid: {list(GP_PRIORS)}")


def hyper_state(model: SingleTaskGP) -> HyperState:
    """Raw hyperparameters (trainable parameters only) to warm-start the next fit."""
    return {k: v.detach().clone() for k, v in model.named_parameters()}


def _load_hypers(model: SingleTaskGP, state: HyperState) -> None:
    own = dict(model.named_parameters())
    with torch.no_grad():
        for key, value in state.items():
            if key in own and own[key].shape == value.shape:
                own[key].copy_(value.to(own[key]))


def mll_value(model: SingleTaskGP) -> float:
    """Exact marginal log likelihood (per datum, as gpytorch reports it) at current hyperparameters."""
    model.train()
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    with torch.no_grad():
        X = model.train_inputs[0]
        out = model(X)
        value = float(mll(out, model.train_targets))
    model.eval()
    return value


def condition_gp(
    X: torch.Tensor,
    Y: torch.Tensor,
    state: HyperState,
    prior: str = "dim_scaled",
    spec: GPSpec | None = None,
) -> SingleTaskGP:
    """Exact GP posterior on ``X``, ``Y`` with fixed hyperparameters ``state`` (no fitting).

    Used between hyperparameter refits: the outcome transform is re-computed on the new
    data, the kernel and noise hyperparameters are the last fitted ones.
    """
    model = _new_model(X, Y, prior, spec)
    _load_hypers(model, state)
    model.eval()
    return model


def fit_gp(
    X: torch.Tensor,
    Y: torch.Tensor,
    warm_state: HyperState | None = None,
    max_retries: int = 2,
    ftol: float | None = None,
    prior: str = "dim_scaled",
    fit: str = "botorch",
    spec: GPSpec | None = None,
) -> tuple[SingleTaskGP, FitInfo]:
    """Fit a SingleTaskGP on ``X`` (n, d) in the unit cube and ``Y`` (n, 1), never raising.

    ``warm_state`` (from ``hyper_state``) initialises the hyperparameters; ``prior`` is one
    of ``GP_PRIORS``, ``fit`` one of ``GP_FITS`` (``ftol`` applies to ``"botorch"`` only);
    ``spec`` (same prior) sets the kernel family and the hyperparameters held fixed.
    Attempt 0 uses the warm state (if any); retries re-create the model
    (initial hyperparameters) with a 100x larger Cholesky jitter each time (1e-8, 1e-6, 1e-4).
    """
    if X.ndim != 2 or Y.shape != (X.shape[0], 1):
        raise ValueError(
            f"fit_gp: expected X (n, d) and Y (n, 1), got {tuple(X.shape)}, {tuple(Y.shape)}"
        )
    if fit not in GP_FITS:
        raise ValueError(f"unknown GP fit {fit!r}; valid: {list(GP_FITS)}")
    start = time.perf_counter()
    jitter = 1e-8
    last_error: Exception | None = None
    model = _new_model(X, Y, prior, spec)
    for attempt in range(max_retries + 1):
        model = _new_model(X, Y, prior, spec)
        if attempt == 0 and warm_state is not None:
            _load_hypers(model, warm_state)
        mll = ExactMarginalLogLikelihood(model.likelihood, model)
        try:
            with warnings.catch_warnings(), gpytorch.settings.cholesky_jitter(double_value=jitter):
                warnings.simplefilter("ignore")
                if fit == "log":
                    fit_log_space(mll)
                elif ftol is None:
                    fit_gpytorch_mll(mll)
                else:
                    fit_gpytorch_mll(mll, optimizer_kwargs={"options": {"ftol": ftol}})
            model.eval()
            value = mll_value(model)
            if value != value:  # NaN MLL counts as a failure
                raise RuntimeError("marginal log likelihood is NaN after fitting")
            status = "ok" if attempt == 0 else "retry"
            if attempt:
                LOG.warning("GP fit succeeded on retry %d (jitter %.0e)", attempt, jitter)
            return model, FitInfo(time.perf_counter() - start, value, status, attempt + 1)
        except Exception as exc:  # numerical failures of any kind must not kill the run
            last_error = exc
            LOG.warning("GP fit attempt %d failed: %s", attempt, exc)
            jitter *= 100.0
    model = _new_model(X, Y, prior, spec)
    model.eval()
    LOG.error(
        "GP fit failed %d times (%s); using prior-mode hyperparameters", max_retries + 1, last_error
    )
    try:
        value = mll_value(model)
    except Exception:
        value = float("nan")
    return model, FitInfo(time.perf_counter() - start, value, "failed", max_retries + 1)
