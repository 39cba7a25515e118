"""Model settings as run dimensions (``bo/gp_spec.py``): kernel family, fixed lengthscale,
noise and outputscale; at their defaults a run is the run it was before they existed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from gpytorch.kernels import MaternKernel, RBFKernel, ScaleKernel

from boexplore.bo import run_bo
from boexplore.bo.gp_spec import MODEL_DEFAULTS, GPSpec, build_model
from boexplore.bo.loop import settings_identity
from boexplore.bo.model import fit_gp
from boexplore.bo.settings import BOSettings

from .conftest import FAST, Quadratic

#: Proposals of four methods on Branin-2 (seed 1, budget 8, n_init 4, FAST settings) made by
#: the engine before the model settings existed (main at b79d734), floats as hex.
BEFORE = Path(__file__).with_name("data") / "model_settings_before.json"
XS = ["x_0", "x_1"]


def _branin_runs(**settings) -> dict[str, np.ndarray]:
    from boexplore.problems import get_problem

    out = {}
    for method in json.loads(BEFORE.read_text()):
        trace = run_bo(
            get_problem("branin", 2), method, seed=1, budget=8, n_init=4, **FAST, **settings
        )
        out[method] = trace[XS].to_numpy()
    return out


@pytest.fixture(scope="module")
def default_runs() -> dict[str, np.ndarray]:
    torch.set_num_threads(1)
    return _branin_runs()


def test_default_model_gives_the_proposals_of_the_engine_before_the_settings(default_runs):
    """Bit-identical on the machine that made the file; CPUs differ in the last bits, so the
    comparison allows the golden trace's tolerance (tests/bo/test_engine_identity.py)."""
    before = json.loads(BEFORE.read_text())
    for method, rows in before.items():
        want = np.array([[float.fromhex(v) for v in row] for row in rows])
        np.testing.assert_allclose(default_runs[method], want, atol=1e-5, err_msg=method)


def test_explicit_defaults_and_the_prior_s_own_kernel_are_the_same_bits(default_runs):
    """Every setting at its default, and the RBF kernel named (built by ``build_model``, not by
    BoTorch's default path), give the default run's proposals to the bit."""
    for settings in (MODEL_DEFAULTS, {"gp_kernel": "rbf"}):
        for method, x in _branin_runs(**settings).items():
            np.testing.assert_array_equal(x, default_runs[method], err_msg=f"{method} {settings}")


def test_gamma_prior_kernel_built_here_matches_botorch_s():
    X = torch.rand(10, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    Y = -(X - 0.3).pow(2).sum(-1, keepdim=True)
    plain, _ = fit_gp(X, Y, prior="gamma")
    built, _ = fit_gp(
        X, Y, prior="gamma", spec=GPSpec(prior="gamma", kernel="matern52", outputscale="fitted")
    )
    for (n1, p1), (n2, p2) in zip(plain.named_parameters(), built.named_parameters(), strict=True):
        assert n1 == n2
        torch.testing.assert_close(p1, p2, rtol=0, atol=0)


@pytest.mark.parametrize(
    ("kernel", "cls", "nu"),
    [
        ("matern12", MaternKernel, 0.5),
        ("matern32", MaternKernel, 1.5),
        ("matern52", MaternKernel, 2.5),
        ("rbf", RBFKernel, None),
    ],
)
def test_kernel_families_are_ard_under_the_prior_s_lengthscale_prior(kernel, cls, nu):
    X = torch.rand(6, 4, dtype=torch.float64)
    model = build_model(X, X.sum(-1, keepdim=True), GPSpec(kernel=kernel))
    k = model.covar_module
    assert type(k) is cls and k.lengthscale.shape == (1, 4)
    assert nu is None or k.nu == nu
    # dim_scaled prior: LogNormal(sqrt(2) + log(d) / 2, sqrt(3)), initialised at its mode
    loc = math.sqrt(2) + math.log(4) / 2
    assert k.lengthscale_prior.loc.item() == pytest.approx(loc)
    assert k.lengthscale[0, 0].item() == pytest.approx(math.exp(loc - 3))


@pytest.mark.parametrize("prior", ["dim_scaled", "gamma"])
def test_fixed_hyperparameters_stay_at_their_rule_through_the_fit(prior):
    d = 4
    X = torch.rand(12, d, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    Y = torch.sin(6 * X).sum(-1, keepdim=True)
    spec = GPSpec(prior=prior, lengthscale=0.2, noise=1e-3, outputscale=2.0)
    model, info = fit_gp(X, Y, prior=prior, spec=spec)
    assert info.status == "ok"
    k = model.covar_module
    assert isinstance(k, ScaleKernel)
    want = 0.2 * math.sqrt(d) if prior == "dim_scaled" else 0.2
    torch.testing.assert_close(
        k.base_kernel.lengthscale, torch.full((1, d), want, dtype=torch.float64)
    )
    assert k.outputscale.item() == 2.0 and model.likelihood.noise.item() == 1e-3
    # the fitted rest moved away from the initial values
    fresh = build_model(X, Y, spec)
    assert not torch.equal(fresh.mean_module.constant, model.mean_module.constant)


def test_each_setting_changes_the_trace_and_enters_the_identity_only_when_set(tmp_path):
    from boexplore.bo.checkpoint import read_checkpoint

    def run(name: str, **kw):
        ck = tmp_path / f"{name}.ckpt"
        trace = run_bo(Quadratic(3), "ucb", seed=2, budget=8, n_init=4, checkpoint=ck, **FAST, **kw)
        return trace[[f"x_{j}" for j in range(3)]].to_numpy(), read_checkpoint(ck).meta

    base, meta = run("default")
    assert not set(MODEL_DEFAULTS) & set(meta["identity"]["settings"])
    changed = {
        "gp_kernel": "matern12",
        "gp_lengthscale": 0.05,
        "gp_noise": 0.1,
        "gp_outputscale": "fitted",
    }
    for key, value in changed.items():
        x, m = run(key, **{key: value})
        assert m["identity"]["settings"][key] == value
        assert m["identity_sha256"] != meta["identity_sha256"]
        np.testing.assert_array_equal(x[:4], base[:4])
        assert not np.allclose(x[4:], base[4:]), key


def test_thompson_sampling_runs_on_a_matern12_with_fixed_outputscale():
    trace = run_bo(
        Quadratic(2),
        "ts",
        seed=0,
        budget=7,
        n_init=4,
        gp_kernel="matern12",
        gp_outputscale=0.5,
        gp_lengthscale=0.1,
        **FAST,
    )
    assert len(trace) == 7 and not trace["fallback"].astype(bool).any()


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"gp_kernel": "matern72"}, "gp_kernel"),
        ({"gp_lengthscale": -0.1}, "gp_lengthscale"),
        ({"gp_lengthscale": True}, "gp_lengthscale"),
        ({"gp_noise": "1e-6"}, "gp_noise"),
        ({"gp_noise": 1e-12}, "gp_noise"),
        ({"gp_outputscale": "free"}, "gp_outputscale"),
        ({"gp_outputscale": float("inf")}, "gp_outputscale"),
    ],
)
def test_invalid_model_settings_are_refused_by_name(kw, match):
    with pytest.raises(ValueError, match=match):
        BOSettings.from_kwargs(**kw)


def test_a_model_free_method_refuses_model_settings():
    with pytest.raises(ValueError, match="gp_kernel"):
        run_bo(Quadratic(2), "random", seed=0, budget=5, n_init=4, gp_kernel="rbf")
    run_bo(Quadratic(2), "random", seed=0, budget=5, n_init=4, **MODEL_DEFAULTS)


def test_settings_identity_lists_a_fixed_value():
    ident = settings_identity(BOSettings.from_kwargs(gp_lengthscale=0.4, gp_noise=1e-6))
    assert ident["gp_lengthscale"] == 0.4 and ident["gp_noise"] == 1e-6
    assert "gp_kernel" not in ident and "gp_outputscale" not in ident
