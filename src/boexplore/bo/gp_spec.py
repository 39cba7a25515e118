"""The GP's kernel family and which of its hyperparameters are fitted or fixed (issue 56).

Four run settings (``BOSettings.gp_kernel``, ``gp_lengthscale``, ``gp_noise``,
``gp_outputscale``) describe the model under the acquisition function. Their defaults
(``"prior"``, ``"fitted"``, ``"fitted"``, ``"prior"``) are the model ``gp_prior`` builds today,
so every trace made before the settings existed keeps its identity; ``bo/model.py`` then takes
its old path untouched (``GPSpec.plain``).

The rules (inputs live in the unit cube, so the box width is 1 in every dimension; the
``Standardize`` outcome transform makes the observed values' sample variance 1):

* kernel: ``matern12``, ``matern32``, ``matern52`` or ``rbf``, always ARD (one lengthscale per
  dimension), under the lengthscale prior of ``gp_prior`` (``dim_scaled``: LogNormal(sqrt(2) +
  log(d) / 2, sqrt(3)) with lengthscales >= 0.025, as BoTorch builds it; ``gamma``:
  Gamma(3, 6)). ``"prior"``: the family ``gp_prior`` brings (RBF under ``dim_scaled``,
  Matern-5/2 under ``gamma``).
* lengthscale ``c`` (a number): every lengthscale fixed at ``c * sqrt(d)`` under
  ``dim_scaled`` (its prior's median grows as sqrt(d), so a fraction of the box width is
  scaled the same way) and at ``c`` under ``gamma`` (a prior that does not scale with d).
* noise ``c``: the Gaussian noise variance fixed at ``c`` times the standardised outcome's
  variance (that is, at ``c``); ``"fitted"`` keeps the prior's likelihood.
* outputscale: ``"prior"`` keeps what ``gp_prior`` does (``dim_scaled`` has no outputscale:
  the kernel's variance is 1 on the standardised outcome; ``gamma`` fits one under a
  Gamma(2, 0.15) prior); ``"fitted"`` fits one (under ``dim_scaled`` with no prior, our
  choice: BoTorch's default has none to copy); a number ``c`` fixes it at ``c``.

A fixed hyperparameter is set once on the fresh model and excluded from the fit
(``requires_grad = False``; BoTorch's and the log-space fit optimise only trainable
parameters), so every retry and every re-conditioning rebuilds it at the same value.
With an outputscale the covariance module is a ``ScaleKernel`` around the family's kernel;
the trust region reads lengthscales from the top-level covariance module only, so a ``+tr``
method then runs without lengthscale-shaped regions, as it already does under ``gamma``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from botorch.models import SingleTaskGP
from botorch.models.utils.gpytorch_modules import (
    MIN_INFERRED_NOISE_LEVEL,
    get_gaussian_likelihood_with_gamma_prior,
    get_gaussian_likelihood_with_lognormal_prior,
)
from gpytorch.constraints import GreaterThan
from gpytorch.kernels import Kernel, MaternKernel, RBFKernel, ScaleKernel
from gpytorch.likelihoods import GaussianLikelihood
from gpytorch.priors import GammaPrior, LogNormalPrior

from boexplore.bo.model_settings import MATERN_NU, MIN_FIXED_NOISE, MODEL_DEFAULTS, is_number


@dataclass(frozen=True)
class GPSpec:
    """The model a run fits: prior, kernel family, and each hyperparameter fitted or fixed."""

    prior: str = "dim_scaled"
    kernel: str = "prior"
    lengthscale: str | float = "fitted"
    noise: str | float = "fitted"
    outputscale: str | float = "prior"

    @classmethod
    def from_settings(cls, settings: Any) -> GPSpec:
        """From a ``BOSettings`` (or anything with its ``gp_*`` attributes)."""
        return cls(
            prior=settings.gp_prior,
            kernel=settings.gp_kernel,
            lengthscale=settings.gp_lengthscale,
            noise=settings.gp_noise,
            outputscale=settings.gp_outputscale,
        )

    @property
    def plain(self) -> bool:
        """Whether this is the prior's own model (``bo/model.py`` builds it as before)."""
        return (self.kernel, self.lengthscale, self.noise, self.outputscale) == tuple(
            MODEL_DEFAULTS.values()
        )

    def family(self) -> str:
        """The kernel family, with "prior" resolved."""
        if self.kernel != "prior":
            return self.kernel
        return "rbf" if self.prior == "dim_scaled" else "matern52"

    def fixed_lengthscale(self, d: int) -> float | None:
        """The fixed lengthscale in ``d`` dimensions (None when fitted): c sqrt(d) or c."""
        if not is_number(self.lengthscale):
            return None
        scale = math.sqrt(d) if self.prior == "dim_scaled" else 1.0
        return float(self.lengthscale) * scale


def _base_kernel(spec: GPSpec, d: int) -> Kernel:
    """The family's ARD kernel under the lengthscale prior (and constraint) of ``spec.prior``."""
    family = spec.family()
    kwargs: dict[str, Any] = {"ard_num_dims": d}
    if spec.prior == "dim_scaled":
        prior = LogNormalPrior(loc=math.sqrt(2) + math.log(d) * 0.5, scale=math.sqrt(3))
        kwargs["lengthscale_prior"] = prior
        kwargs["lengthscale_constraint"] = GreaterThan(
            2.5e-2, transform=None, initial_value=prior.mode
        )
    elif spec.prior == "gamma":
        kwargs["lengthscale_prior"] = GammaPrior(3.0, 6.0)
    else:
        raise ValueError(f"unknown GP prior {spec.prior!r}")
    if family == "rbf":
        return RBFKernel(**kwargs)
    return MaternKernel(nu=MATERN_NU[family], **kwargs)


def _covar_module(spec: GPSpec, d: int) -> Kernel:
    base = _base_kernel(spec, d)
    scaled = spec.outputscale != "prior" or spec.prior == "gamma"
    if not scaled:
        return base
    use_prior = spec.prior == "gamma"
    return ScaleKernel(base, outputscale_prior=GammaPrior(2.0, 0.15) if use_prior else None)


def _likelihood(spec: GPSpec) -> GaussianLikelihood:
    if not is_number(spec.noise):
        if spec.prior == "gamma":
            return get_gaussian_likelihood_with_gamma_prior()
        return get_gaussian_likelihood_with_lognormal_prior()
    floor = min(MIN_INFERRED_NOISE_LEVEL, MIN_FIXED_NOISE)
    return GaussianLikelihood(noise_constraint=GreaterThan(floor, transform=None))


def _fix(module: torch.nn.Module, name: str, value: float, like: torch.Tensor) -> None:
    """Set hyperparameter ``name`` of ``module`` to ``value`` (in the dtype of ``like``: a
    Python float would pass through float32) and take it out of the fit."""
    module.initialize(**{name: torch.tensor(value, dtype=like.dtype, device=like.device)})
    getattr(module, f"raw_{name}").requires_grad_(False)


def build_model(X: torch.Tensor, Y: torch.Tensor, spec: GPSpec) -> SingleTaskGP:
    """A ``SingleTaskGP`` on ``X``, ``Y`` with the kernel, likelihood and fixed values of
    ``spec`` (the ``Standardize`` outcome transform of the default model)."""
    d = int(X.shape[-1])
    covar = _covar_module(spec, d)
    likelihood = _likelihood(spec)
    model = SingleTaskGP(X, Y, likelihood=likelihood, covar_module=covar)
    model.to(X)
    base = covar.base_kernel if isinstance(covar, ScaleKernel) else covar
    lengthscale = spec.fixed_lengthscale(d)
    if lengthscale is not None:
        _fix(base, "lengthscale", lengthscale, X)
    if is_number(spec.noise):
        _fix(likelihood.noise_covar, "noise", float(spec.noise), X)
    if is_number(spec.outputscale):
        _fix(covar, "outputscale", float(spec.outputscale), X)
    return model
