"""E3 static probe: how lambda and the init scale s shape the randomized policy's draws.

On a fixed data set D (``n_data`` uniform points of the problem, noisy), draw M
fresh initialisations, train each with the RR-TS objective and record: the
entropy of the argmax distribution, P(argmax = x*), the optimism probability
P(max_x g(x, theta) >= f*(x*)) and the calibration ratio
mean_x std_theta0[g(x, theta)] / sigma_t(x) (sigma_t: Matern GP std at noise lambda).
"""

from __future__ import annotations

import numpy as np
import torch

from boexplore.parametric.kernels import DomainKernel, posterior
from boexplore.parametric.mlp import MLPSpec, forward, init_params
from boexplore.parametric.policies import PolicySpec
from boexplore.parametric.stats import entropy
from boexplore.parametric.train import RoundObjective, train


def static_probe(
    problem,
    policy: PolicySpec,
    n_data: int = 20,
    n_draws: int = 64,
    noise_std: float = 0.1,
    seed: int = 0,
) -> dict[str, float]:
    """Statistics of M = ``n_draws`` trained random models on one fixed data set."""
    if policy.kind != "nn" or policy.loss != "squared":
        raise ValueError(
            f"static_probe: needs a squared-loss NN policy, got {policy.kind}/{policy.loss}"
        )
    torch.set_num_threads(1)
    rng = np.random.default_rng([seed, 21])
    N = len(problem.points)
    idx = rng.integers(N, size=n_data)
    y = problem.values[idx] + noise_std * rng.standard_normal(n_data)
    kern = DomainKernel.build(
        problem.points, policy.kernel_lengthscale, jitter=policy.kernel_jitter
    )
    mlp = MLPSpec(problem.dim, policy.width, policy.depth, policy.activation, policy.init_scale)
    draws = [seed * 100_003 + m for m in range(n_draws)]
    dt = torch.float32
    theta0 = [p.to(dt) for p in init_params(mlp, draws, stream=999)]
    X = torch.as_tensor(problem.points, dtype=dt)
    with torch.no_grad():
        G0 = forward(theta0, X, mlp.activation)
    obj = RoundObjective(
        idx=torch.as_tensor(np.tile(idx, (n_draws, 1))),
        y=torch.as_tensor(np.tile(y, (n_draws, 1)), dtype=dt),
        reg=policy.reg,
        lam=policy.lam,
        K_inv=torch.as_tensor(kern.K_inv, dtype=dt),
        G0=G0,
        theta0=theta0,
    )
    theta, _ = train(theta0, lambda p: forward(p, X, mlp.activation), obj, policy.steps, policy.lr)
    with torch.no_grad():
        G = forward(theta, X, mlp.activation).double().numpy()
    arg = G.argmax(1)
    opt = float(problem.values.max())
    sigma = np.sqrt(posterior(kern.K, idx, y, max(policy.lam, 1e-6))[1])
    return {
        "argmax_entropy": entropy(np.bincount(arg, minlength=N)),
        "p_argmax_opt": float(np.mean(arg == problem.optimum_index)),
        "optimism_prob": float(np.mean(G.max(1) >= opt)),
        "calibration_ratio": float(np.mean(G.std(0) / np.maximum(sigma, 1e-12))),
        "n_draws": n_draws,
    }
