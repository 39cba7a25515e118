"""qKG with the fantasy mean cache kept (``bo.kg_fantasy_cache``): the same acquisition values
and gradients as BoTorch's qKG, without the per-fantasy factorisation, and scoped to its use."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from botorch.acquisition import qKnowledgeGradient
from botorch.sampling.normal import SobolQMCNormalSampler
from gpytorch import settings as gpt_settings
from gpytorch.models.exact_prediction_strategies import DefaultPredictionStrategy

from boexplore.bo.acquisition import build_acqf
from boexplore.bo.acquisition.fantasy_cache import (
    _NO_ARGS_KEY,
    FantasyCacheKnowledgeGradient,
    _keep_mean_cache,
    fantasy_mean_cache_kept,
)
from boexplore.bo.loop import run_bo, settings_identity
from boexplore.bo.methods import parse_method
from boexplore.bo.model import fit_gp
from boexplore.bo.settings import BOSettings

from .conftest import Quadratic

D, N, FANTASIES = 3, 40, 8


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(3)
    X = torch.as_tensor(rng.random((N, D)), dtype=torch.float64)
    Y = -((X - 0.4) ** 2).sum(-1, keepdim=True) + 0.01 * torch.randn(N, 1, dtype=torch.float64)
    return fit_gp(X, Y)[0]


def _value_and_grad(cls: type, model, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    sampler = SobolQMCNormalSampler(sample_shape=torch.Size([FANTASIES]), seed=11)
    acqf = cls(model, num_fantasies=FANTASIES, sampler=sampler)
    X = X.clone().requires_grad_(True)
    value = acqf(X)
    (grad,) = torch.autograd.grad(value.sum(), X)  # w.r.t. X only, as BoTorch's optimiser
    return value.detach(), grad


def _trees(b: int, q: int = 1) -> torch.Tensor:
    g = torch.Generator().manual_seed(5)
    return torch.rand(b, q + FANTASIES, D, dtype=torch.float64, generator=g)


@pytest.mark.parametrize("q", [1, 2])
def test_values_and_gradients_match_botorch_qkg(model, q):
    X = _trees(6, q)
    v0, g0 = _value_and_grad(qKnowledgeGradient, model, X)
    v1, g1 = _value_and_grad(FantasyCacheKnowledgeGradient, model, X)
    assert torch.allclose(v1, v0, rtol=1e-9, atol=1e-12)
    assert torch.allclose(g1, g0, rtol=1e-7, atol=1e-10)
    # the comparison can fail: other fantasy draws give other values
    other = SobolQMCNormalSampler(sample_shape=torch.Size([FANTASIES]), seed=12)
    v2 = qKnowledgeGradient(model, num_fantasies=FANTASIES, sampler=other)(X).detach()
    assert not torch.allclose(v2, v0, rtol=1e-9, atol=1e-12)


def _fantasy_strategy(model):
    """A fantasy model's prediction strategy (one fantasy, one new point), before any
    prediction of the fantasy model has read its mean cache."""
    model.posterior(torch.rand(2, D, dtype=torch.float64))  # fills the base model's caches
    fantasy = model.fantasize(
        torch.rand(1, D, dtype=torch.float64),
        SobolQMCNormalSampler(sample_shape=torch.Size([1]), seed=0),
    )
    return fantasy.prediction_strategy


def _read_key_cached(strategy, policy: str = "ignore") -> bool:
    return any(k[:2] == ("mean_cache", (policy,)) for k in strategy._memoize_cache)


def test_cache_kept_only_inside_the_block(model):
    original = DefaultPredictionStrategy.get_fantasy_strategy
    assert not _read_key_cached(_fantasy_strategy(model))  # GPyTorch alone: never found
    with fantasy_mean_cache_kept():
        kept = _fantasy_strategy(model)
    assert _read_key_cached(kept)
    assert DefaultPredictionStrategy.get_fantasy_strategy is original
    with pytest.raises(RuntimeError), fantasy_mean_cache_kept():
        raise RuntimeError("boom")
    assert DefaultPredictionStrategy.get_fantasy_strategy is original


@pytest.mark.parametrize("policy, kept", [("ignore", True), ("mask", False)])
def test_only_policy_ignore_reuses_the_bordered_solve(policy, kept):
    """The bordered solve assumes every label observed: other NaN policies solve anew."""
    strategy = SimpleNamespace(_memoize_cache={_NO_ARGS_KEY: torch.ones(3)})
    with gpt_settings.observation_nan_policy(policy):
        _keep_mean_cache(strategy)
    assert _read_key_cached(strategy, policy) is kept


def test_fewer_factorisations_than_botorch_qkg(model, monkeypatch):
    """The point of it: plain qKG factorises the conditioned matrix at every evaluation."""
    calls = {"n": 0}
    real = torch.linalg.cholesky_ex

    def counting(*args, **kwargs):
        calls["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(torch.linalg, "cholesky_ex", counting)
    counts = {}
    for cls in (qKnowledgeGradient, FantasyCacheKnowledgeGradient):
        _value_and_grad(cls, model, _trees(1))  # base caches filled
        calls["n"] = 0
        _value_and_grad(cls, model, _trees(4))
        counts[cls.__name__] = calls["n"]
    assert counts["FantasyCacheKnowledgeGradient"] < counts["qKnowledgeGradient"]


def test_setting_selects_the_class_and_enters_the_identity_only_when_on(model):
    bounds = torch.stack([torch.zeros(D), torch.ones(D)]).to(torch.float64)
    spec = parse_method(f"kg(fantasies={FANTASIES})")
    off, on = BOSettings(), BOSettings.from_kwargs(kg_fantasy_cache=True)
    assert type(build_acqf(spec, model, 0.0, bounds, None, off, 0)) is qKnowledgeGradient
    assert isinstance(build_acqf(spec, model, 0.0, bounds, None, on, 0),
                      FantasyCacheKnowledgeGradient)  # fmt: skip
    assert "kg_fantasy_cache" not in settings_identity(off)
    assert settings_identity(on)["kg_fantasy_cache"] is True


def test_short_qkg_run_with_the_cache_matches_without_to_rounding():
    fast = dict(num_restarts=1, raw_samples=16, acq_maxiter=15, mc_samples=16)
    kw = dict(budget=6, n_init=4, seed=5)
    spec = f"kg(fantasies={FANTASIES})"
    base = run_bo(Quadratic(2), spec, **kw, **fast)
    kept = run_bo(Quadratic(2), spec, **kw, **fast, kg_fantasy_cache=True)
    x_cols = [c for c in base.columns if c.startswith("x_")]
    np.testing.assert_allclose(kept[x_cols].to_numpy(), base[x_cols].to_numpy(), atol=1e-6)
