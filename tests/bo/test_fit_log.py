"""The log-space GP fit (``gp_fit = "log"``): the same objective, reached in fewer evaluations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from gpytorch.mlls import ExactMarginalLogLikelihood

from boexplore.bo.fit_log import fit_log_space
from boexplore.bo.loop import run_bo
from boexplore.bo.model import GP_FITS, _new_model, fit_gp
from boexplore.bo.settings import BOSettings


def _ard_data(n: int, d: int, active: int = 2, seed: int = 0):
    """A function of ``active`` of ``d`` inputs: the fit must grow d - active lengthscales."""
    g = torch.Generator().manual_seed(seed)
    X = torch.rand(n, d, generator=g, dtype=torch.float64)
    Y = torch.sin(5 * X[:, :active]).sum(-1, keepdim=True)
    return X, Y


class _CountingMLL(ExactMarginalLogLikelihood):
    calls = 0

    def forward(self, *args, **kwargs):
        type(self).calls += 1
        return super().forward(*args, **kwargs)


@pytest.mark.parametrize("prior", ["dim_scaled", "gamma"])
def test_log_fit_reaches_the_botorch_fit_marginal_likelihood(prior):
    X, Y = _ard_data(30, 8)
    _, base = fit_gp(X, Y, prior=prior)
    model, log = fit_gp(X, Y, prior=prior, fit="log")
    assert log.status == "ok"
    assert log.mll >= base.mll - 0.02, (log.mll, base.mll)
    # constraints hold at the answer (lengthscale >= 2.5e-2 and noise >= 1e-4 under dim_scaled)
    ls = (
        model.covar_module.base_kernel.lengthscale
        if prior == "gamma"
        else (model.covar_module.lengthscale)
    )
    assert torch.all(ls > 0) and float(model.likelihood.noise) >= 1e-4 * (1 - 1e-9)


def test_log_fit_needs_fewer_evaluations_where_lengthscales_must_grow():
    X, Y = _ard_data(40, 20)
    counts = {}
    for fit in GP_FITS:
        model = _new_model(X, Y)
        _CountingMLL.calls = 0
        mll = _CountingMLL(model.likelihood, model)
        if fit == "log":
            fit_log_space(mll)
        else:
            from botorch.fit import fit_gpytorch_mll

            fit_gpytorch_mll(mll)
        counts[fit] = _CountingMLL.calls
    assert counts["log"] * 2 < counts["botorch"], counts


def test_log_fit_optimum_is_a_stationary_point_of_the_objective():
    """At the answer the raw gradient, mapped to log space, is ~0 for unbounded coordinates:
    the chain rule through the constraint is right (a wrong Jacobian stops elsewhere)."""
    X, Y = _ard_data(25, 4)
    model = _new_model(X, Y)
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    fit_log_space(mll)
    model.zero_grad()
    (-mll(model(*model.train_inputs), model.train_targets)).backward()
    ls = model.covar_module.raw_lengthscale
    g_log = (ls.grad * ls.detach()).reshape(-1)
    free = ls.detach().reshape(-1) > 2.5e-2 * 1.01
    assert free.any()
    assert float(g_log[free].abs().max()) < 1e-3


def test_unknown_fit_is_refused_by_name():
    X, Y = _ard_data(10, 2)
    with pytest.raises(ValueError, match="GP fit"):
        fit_gp(X, Y, fit="adam")
    with pytest.raises(ValueError, match="gp_fit"):
        BOSettings.from_kwargs(gp_fit="adam")


def test_gp_fit_setting_changes_the_trace_and_is_in_the_identity_only_when_set(tmp_path):
    from boexplore.bo.checkpoint import read_checkpoint
    from boexplore.problems import get_problem

    fast = {"num_restarts": 2, "raw_samples": 32}
    problem = get_problem("hartmann", 6)

    def run(name: str, **kw):
        ck = tmp_path / f"{name}.ckpt"
        trace = run_bo(problem, "ucb(beta=2)", seed=1, budget=12, n_init=8, checkpoint=ck, **kw)
        return trace, read_checkpoint(ck).meta["identity"]["settings"]

    default, s_default = run("default", **fast)
    explicit, s_explicit = run("explicit", gp_fit="botorch", **fast)
    log, s_log = run("log", gp_fit="log", **fast)
    assert "gp_fit" not in s_default and s_explicit == s_default
    assert s_log["gp_fit"] == "log"
    xs = [f"x_{j}" for j in range(6)]
    pd.testing.assert_frame_equal(default[xs], explicit[xs])
    np.testing.assert_array_equal(default[xs].to_numpy()[:8], log[xs].to_numpy()[:8])
    assert not np.array_equal(default[xs].to_numpy()[8:], log[xs].to_numpy()[8:])
