"""Linear-model sanity case of the randomized regularised estimator (moment checks).

For g(x, theta) = phi(x)^T theta with theta_0 ~ N(0, I), the init function is a
GP(0, K) draw with K = Phi Phi^T, and the func-regularised squared-loss
minimiser is g0 + K_{.X} A (y - g0(X)), A = (K_XX + lam I)^{-1}. Its law is
Gaussian with the GP posterior mean (noise lam) and covariance
Sigma_t - lam K_{.X} A^2 K_{X.}; with targets perturbed by N(0, lam) it is the
exact GP posterior. We check both through the real training code.
"""

import numpy as np
import torch

from boexplore.parametric.train import RoundObjective, train

N, P, LAM, M = 5, 12, 0.5, 4000
IDX = np.array([0, 1, 3])
Y = np.array([0.8, -0.3, 1.2])


def _setup():
    rng = np.random.default_rng(1)
    Phi = rng.standard_normal((N, P)) / np.sqrt(P)
    K = Phi @ Phi.T
    A = np.linalg.inv(K[np.ix_(IDX, IDX)] + LAM * np.eye(len(IDX)))
    kx = K[:, IDX]
    mean = kx @ A @ Y
    post_cov = K - kx @ A @ kx.T
    init_only_cov = post_cov - LAM * kx @ A @ A @ kx.T
    return Phi, K, mean, post_cov, init_only_cov


def _draws(perturb: bool) -> np.ndarray:
    Phi, K, *_ = _setup()
    gen = torch.Generator().manual_seed(7 + perturb)
    theta0 = [torch.randn(M, P, generator=gen, dtype=torch.float64)]
    Phi_t = torch.tensor(Phi)
    model = lambda p: p[0] @ Phi_t.T  # noqa: E731
    y = torch.tensor(Y).expand(M, -1).clone()
    if perturb:
        y = y + LAM**0.5 * torch.randn(M, len(IDX), generator=gen, dtype=torch.float64)
    obj = RoundObjective(
        idx=torch.tensor(IDX).expand(M, -1),
        y=y,
        reg="func",
        lam=LAM,
        K_inv=torch.tensor(np.linalg.inv(K)),
        G0=model(theta0),
    )
    theta, _ = train(theta0, model, obj, steps=600, lr=0.05, decay_at=0.6)
    return model(theta).numpy()


def test_init_only_matches_reduced_covariance():
    _, _, mean, post_cov, init_only_cov = _setup()
    G = _draws(perturb=False)
    se = np.sqrt(np.diag(init_only_cov) / M)
    assert np.all(np.abs(G.mean(0) - mean) < 5 * se + 1e-3)
    np.testing.assert_allclose(np.cov(G.T), init_only_cov, atol=0.06 * np.abs(init_only_cov).max())
    # init-only randomisation under-disperses relative to the exact posterior
    assert np.trace(np.cov(G.T)) < np.trace(post_cov)


def test_target_perturbation_is_exact_posterior():
    _, _, mean, post_cov, init_only_cov = _setup()
    G = _draws(perturb=True)
    se = np.sqrt(np.diag(post_cov) / M)
    assert np.all(np.abs(G.mean(0) - mean) < 5 * se + 1e-3)
    np.testing.assert_allclose(np.cov(G.T), post_cov, atol=0.06 * np.abs(post_cov).max())
    gap = np.trace(post_cov) - np.trace(init_only_cov)
    assert abs(np.trace(np.cov(G.T)) - np.trace(post_cov)) < 0.5 * gap
