"""Exact function-space minimiser and convergence of the network training to it."""

from functools import partial

import numpy as np
import pytest
import torch
from scipy.optimize import minimize

from boexplore.parametric.exact import exact_minimiser
from boexplore.parametric.kernels import DomainKernel, posterior
from boexplore.parametric.lfbo import lfbo_weights
from boexplore.parametric.mlp import MLPSpec, forward, init_params
from boexplore.parametric.train import RoundObjective, train

POINTS = np.linspace(0, 1, 10)[:, None]
KERN = DomainKernel.build(POINTS, 0.3, jitter=1e-6)
RNG = np.random.default_rng(0)
IDX = np.array([1, 4, 4, 8, 2, 6])
Y = np.sin(5 * POINTS[IDX, 0]) + 0.1 * RNG.standard_normal(len(IDX))
G0 = 0.3 * RNG.standard_normal(len(POINTS))


def _objective(G: np.ndarray, lam: float, loss: str = "squared", **kw) -> float:
    obj = RoundObjective(
        idx=torch.as_tensor(IDX[None]),
        loss=loss,
        reg="func" if lam > 0 else "none",
        lam=lam,
        K_inv=torch.as_tensor(KERN.K_inv),
        G0=torch.as_tensor(G0[None]),
        **{k: torch.as_tensor(v[None]) for k, v in kw.items()},
    )
    return float(obj.value(torch.as_tensor(G[None]))[0])


@pytest.mark.parametrize("lam", [0.01, 1.0])
def test_squared_closed_form_is_the_gp_mean_and_a_minimum(lam):
    sol = exact_minimiser(KERN.K, IDX, G0, lam, y=Y)
    mean, _ = posterior(KERN.K, IDX, Y - G0[IDX], lam)
    np.testing.assert_allclose(sol.G, G0 + mean, atol=1e-8)
    assert sol.value == pytest.approx(_objective(sol.G, lam, y=Y), rel=1e-6)
    for _ in range(5):  # any perturbation increases the objective
        assert _objective(sol.G + 0.05 * RNG.standard_normal(len(G0)), lam, y=Y) > sol.value


def test_lfbo_newton_matches_a_generic_optimiser():
    pos_w, neg_w = lfbo_weights(Y, 0.33, "ei")
    sol = exact_minimiser(KERN.K, IDX, G0, 0.1, "lfbo", pos_w=pos_w, neg_w=neg_w)
    res = minimize(
        lambda g: _objective(g, 0.1, "lfbo", pos_w=pos_w, neg_w=neg_w), G0, method="BFGS"
    )
    assert sol.value <= res.fun + 1e-6
    assert sol.value == pytest.approx(
        _objective(sol.G, 0.1, "lfbo", pos_w=pos_w, neg_w=neg_w), rel=1e-6
    )


def test_unregularised_value_is_within_index_sum_of_squares():
    sol = exact_minimiser(KERN.K, IDX, G0, 0.0, y=Y)
    assert sol.G is None
    assert sol.value == pytest.approx(0.25 * (Y[1] - Y[2]) ** 2)  # two obs. at index 4


def _trained_gap(steps: int, lam: float = 0.01) -> tuple[float, float]:
    """(gap to the exact minimum, max |g - g*|) of a network trained with Adam for ``steps``."""
    spec = MLPSpec(1, width=32)
    theta0 = init_params(spec, [3])
    X = torch.as_tensor(POINTS)
    with torch.no_grad():
        g0 = forward(theta0, X)
    obj = RoundObjective(
        idx=torch.as_tensor(IDX[None]),
        y=torch.as_tensor(Y[None]),
        lam=lam,
        K_inv=torch.as_tensor(KERN.K_inv),
        G0=g0,
    )
    theta, final = train(theta0, partial(forward, X=X), obj, steps, lr=1e-2)
    sol = exact_minimiser(KERN.K, IDX, g0[0].numpy(), lam, y=Y)
    with torch.no_grad():
        G = forward(theta, X)[0].numpy()
    return float(final[0]) - sol.value, float(np.abs(G - sol.G).max())


def test_trained_network_matches_closed_form_and_short_training_does_not():
    gap, err = _trained_gap(2000)
    assert gap >= -1e-6  # the network class is inside the function class
    assert gap < 1e-3 and err < 0.05
    for steps in (0, 20):  # controls: untrained / few steps fail the same tolerance
        gap_c, err_c = _trained_gap(steps)
        assert gap_c > 1e-3 and err_c > 0.05


def test_lbfgs_float64_also_converges():
    spec = MLPSpec(1, width=32)
    theta0 = init_params(spec, [3, 4])
    X = torch.as_tensor(POINTS)
    with torch.no_grad():
        g0 = forward(theta0, X)
    obj = RoundObjective(
        idx=torch.as_tensor(np.stack([IDX, IDX])),
        y=torch.as_tensor(np.stack([Y, Y])),
        lam=0.1,
        K_inv=torch.as_tensor(KERN.K_inv),
        G0=g0,
    )
    _, final = train(theta0, partial(forward, X=X), obj, 300, optimizer="lbfgs")
    for b in range(2):
        sol = exact_minimiser(KERN.K, IDX, g0[b].numpy(), 0.1, y=Y)
        assert 0 <= float(final[b]) - sol.value + 1e-8 < 1e-3


def test_anchor_regulariser_divides_by_init_scale_squared():
    theta0 = init_params(MLPSpec(1, width=4), [0])
    theta = [p + 1.0 for p in theta0]
    n = sum(p[0].numel() for p in theta0)
    for s in (0.5, 2.0):
        obj = RoundObjective(
            idx=torch.zeros(1, 0, dtype=torch.long),
            y=torch.zeros(1, 0),
            reg="anchor",
            lam=1.0,
            theta0=theta0,
            anchor_scale=s,
        )
        assert float(obj.anchor_reg(theta)[0]) == pytest.approx(0.5 * n / s**2)
