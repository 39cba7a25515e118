"""Regularisers, losses and LFBO weights against closed forms on tiny cases."""

import numpy as np
import pytest
import torch

from boexplore.parametric.kernels import DomainKernel
from boexplore.parametric.lfbo import lfbo_weights
from boexplore.parametric.mlp import MLPSpec, embed_params, forward, from_numpy, init_params
from boexplore.parametric.train import RoundObjective
from boexplore.problems.finite import init_mlp_params, mlp_forward

D = torch.float64


def test_func_regulariser_closed_form():
    K = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.5]])
    G = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]], dtype=D)
    G0 = torch.tensor([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], dtype=D)
    obj = RoundObjective(
        idx=torch.tensor([[0, 2], [1, 1]]),
        y=torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=D),
        reg="func",
        lam=3.0,
        K_inv=torch.tensor(np.linalg.inv(K)),
        G0=G0,
    )
    d = (G - G0).numpy()
    expect_reg = 0.5 * np.array([d[b] @ np.linalg.solve(K, d[b]) for b in range(2)])
    np.testing.assert_allclose(obj.func_reg(G).numpy(), expect_reg, rtol=1e-12)
    expect_data = np.array(
        [0.5 * ((1 - 1) ** 2 + (0.5 - 0) ** 2), 0.5 * ((2 - 0) ** 2 + (2 - 1) ** 2)]
    )
    np.testing.assert_allclose(obj.value(G).numpy(), expect_data + 3.0 * expect_reg, rtol=1e-12)


def test_anchor_regulariser_and_lfbo_loss():
    theta0 = [torch.zeros(1, 2, 2, dtype=D), torch.zeros(1, 2, dtype=D)]
    theta = [torch.ones(1, 2, 2, dtype=D), torch.full((1, 2), 2.0, dtype=D)]
    G = torch.tensor([[0.3, -0.7]], dtype=D)
    pos, neg = torch.tensor([[2.0, 0.0]], dtype=D), torch.tensor([[1.0, 1.0]], dtype=D)
    obj = RoundObjective(
        idx=torch.tensor([[0, 1]]),
        loss="lfbo",
        pos_w=pos,
        neg_w=neg,
        reg="anchor",
        lam=0.5,
        theta0=theta0,
    )
    assert obj.anchor_reg(theta).item() == pytest.approx(0.5 * (4 + 8))
    sp = lambda u: np.log1p(np.exp(u))  # noqa: E731
    expect = 2 * sp(-0.3) + sp(0.3) + sp(-0.7) + 0.5 * 6.0
    assert obj.value(G, theta).item() == pytest.approx(expect, rel=1e-12)


def test_bad_objective_raises():
    with pytest.raises(ValueError, match="func regulariser"):
        RoundObjective(
            idx=torch.zeros(1, 1, dtype=torch.long), y=torch.zeros(1, 1), reg="func", lam=1.0
        )
    with pytest.raises(ValueError, match="reg must be"):
        RoundObjective(idx=torch.zeros(1, 1, dtype=torch.long), y=torch.zeros(1, 1), reg="l1")


def test_lfbo_weights_hand_computed():
    y = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    tau = np.quantile(y, 0.67)  # 2.68
    pos, neg = lfbo_weights(y, gamma=0.33, utility="ei")
    raw = np.maximum(y - tau, 0)
    np.testing.assert_allclose(pos, raw / raw[raw > 0].mean())
    np.testing.assert_array_equal(neg, np.ones(5))
    pos, neg = lfbo_weights(y, gamma=0.33, utility="pi")
    np.testing.assert_array_equal(pos, [0, 0, 0, 1, 1])
    # official balancing: positives x (n1+n0)/n1 = 7/2, negatives x 7/5, then / mean over 7 rows
    pos, neg = lfbo_weights(y, gamma=0.33, utility="pi", balance=True)
    mean_w = (2 * 3.5 + 5 * 1.4) / 7
    np.testing.assert_allclose(pos, np.array([0, 0, 0, 3.5, 3.5]) / mean_w)
    np.testing.assert_allclose(neg, np.full(5, 1.4 / mean_w))
    with pytest.raises(ValueError, match="gamma"):
        lfbo_weights(y, gamma=1.5)


def test_torch_mlp_matches_numpy_and_embedding():
    rng = np.random.default_rng(0)
    params = init_mlp_params(rng, 2, 8, 2, 1.0)
    X = rng.random((10, 2))
    ref = mlp_forward(params, X)
    out = forward(from_numpy(params, 3), torch.tensor(X)).numpy()
    np.testing.assert_allclose(out, np.tile(ref, (3, 1)), atol=1e-12)
    wide = embed_params(params, 20)
    np.testing.assert_allclose(mlp_forward(wide, X), ref, atol=1e-12)
    assert embed_params(params, 4) is None


def test_init_params_per_seed_and_scale():
    spec = MLPSpec(1, width=512, depth=1, init_scale=2.0)
    a = init_params(spec, [0, 1])
    b = init_params(spec, [1])
    torch.testing.assert_close(a[0][1], b[0][0])
    assert a[0][0].std().item() == pytest.approx(2.0, rel=0.15)  # fan_in = 1
    assert a[2][0].std().item() == pytest.approx(2.0 / 512**0.5, rel=0.15)


def test_domain_kernel_rkhs_norm():
    pts = np.linspace(0, 1, 6)[:, None]
    k = DomainKernel.build(pts, 0.3)
    f = np.sin(3 * pts[:, 0])
    assert k.rkhs_norm_sq(f)[0] == pytest.approx(f @ np.linalg.solve(k.K, f), rel=1e-8)
