"""GP fitting: warm start, retries, never dying on numerical failure."""

from __future__ import annotations

import pytest
import torch

import boexplore.bo.model as model_mod
from boexplore.bo.model import fit_gp, hyper_state


def _data(n: int = 12, d: int = 2):
    g = torch.Generator().manual_seed(0)
    X = torch.rand(n, d, generator=g, dtype=torch.float64)
    Y = torch.sin(6 * X).sum(-1, keepdim=True)
    return X, Y


def test_fit_ok_and_warm_start_reaches_same_quality():
    X, Y = _data()
    model, info = fit_gp(X[:-1], Y[:-1])
    assert info.status == "ok" and info.attempts == 1
    warm, info_w = fit_gp(X, Y, warm_state=hyper_state(model))
    cold, info_c = fit_gp(X, Y)
    assert abs(info_w.mll - info_c.mll) < 0.05
    assert warm.train_inputs[0].shape == (12, 2)


def test_retry_then_success(monkeypatch):
    calls = {"n": 0}
    real = model_mod.fit_gpytorch_mll

    def flaky(mll, **kw):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("simulated NotPSD")
        return real(mll, **kw)

    monkeypatch.setattr(model_mod, "fit_gpytorch_mll", flaky)
    X, Y = _data()
    _, info = fit_gp(X, Y)
    assert info.status == "retry" and info.attempts == 2


def test_total_failure_returns_usable_model(monkeypatch):
    def broken(mll, **kw):
        raise RuntimeError("always fails")

    monkeypatch.setattr(model_mod, "fit_gpytorch_mll", broken)
    X, Y = _data()
    model, info = fit_gp(X, Y, max_retries=1)
    assert info.status == "failed" and info.attempts == 2
    post = model.posterior(X[:3])
    assert torch.isfinite(post.mean).all()


def test_gamma_prior_is_botorchs_earlier_default():
    """gp_prior='gamma': scaled Matern-5/2 with the Gamma priors BoTorch used before 0.12."""
    from gpytorch.kernels import MaternKernel, RBFKernel, ScaleKernel
    from gpytorch.priors import GammaPrior, LogNormalPrior

    X, Y = _data()
    old, info = fit_gp(X, Y, prior="gamma")
    assert info.status == "ok"
    assert isinstance(old.covar_module, ScaleKernel)
    base = old.covar_module.base_kernel
    assert isinstance(base, MaternKernel) and base.nu == 2.5
    ls_prior = base.lengthscale_prior
    assert isinstance(ls_prior, GammaPrior)
    assert (float(ls_prior.concentration), float(ls_prior.rate)) == pytest.approx((3.0, 6.0))
    noise_prior = old.likelihood.noise_covar.noise_prior
    assert (float(noise_prior.concentration), float(noise_prior.rate)) == pytest.approx((1.1, 0.05))
    new, _ = fit_gp(X, Y)
    assert isinstance(new.covar_module, RBFKernel)
    assert isinstance(new.covar_module.lengthscale_prior, LogNormalPrior)
    # the two priors fit different lengthscales on the same data (the setting matters)
    ls_old = old.covar_module.base_kernel.lengthscale.detach()
    assert not torch.allclose(ls_old, new.covar_module.lengthscale.detach())


def test_unknown_prior_is_refused():
    X, Y = _data()
    with pytest.raises(ValueError, match="unknown GP prior"):
        fit_gp(X, Y, prior="wishart")
    from boexplore.bo.settings import BOSettings

    with pytest.raises(ValueError, match="gp_prior"):
        BOSettings.from_kwargs(gp_prior="flat")
