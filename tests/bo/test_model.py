"""GP fitting: warm start, retries, never dying on numerical failure."""

from __future__ import annotations

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
