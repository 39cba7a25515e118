"""MuJoCo locomotion with linear policies: ``mujoco_swimmer`` (16-d) and ``mujoco_hopper`` (33-d).

The construction of Wang et al. (2020, LA-MCTS), who took it from ARS (Mania
et al. 2018): a deterministic linear policy ``a = clip(M (s - mu) / sigma, -1, 1)``
with the matrix ``M`` (actions x observations, row-major) as the input, entries
in ``[-1, 1]``. The value is the mean undiscounted return of ``n_episodes``
episodes on gymnasium's ``Swimmer-v5`` / ``Hopper-v5`` with reset seeds drawn
from the instance seed, each cut at ``max_steps`` steps (Swimmer 1000 steps,
3 episodes; Hopper 500 steps, 3 episodes, so one evaluation stays below ~1 s).

State normalisation: Swimmer uses none (mu = 0, sigma = 1, as LA-MCTS). For
Hopper, ``mu``/``sigma`` are the observation mean/std over ``stats_episodes``
rollouts of random policies from the box with early termination disabled
(seeded by the instance seed), floored at 1e-2; they are computed once and
stored in the spec (LA-MCTS hard-codes statistics from ARS training runs
instead). No known optimum. Needs ``gymnasium[mujoco]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boexplore.problems.base import Problem, ProblemInfo
from boexplore.problems.realworld.deps import require
from boexplore.problems.registry import register

# name -> (gymnasium id, observation size, action size, normalise?, default max_steps)
ENVS: dict[str, tuple[str, int, int, bool, int]] = {
    "mujoco_swimmer": ("Swimmer-v5", 8, 2, False, 1000),
    "mujoco_hopper": ("Hopper-v5", 11, 3, True, 500),
}
STD_FLOOR = 1e-2


def _make_env(problem: str, env_id: str, **kwargs: Any) -> Any:
    gym = require("gymnasium", problem, "gymnasium[mujoco]")
    require("mujoco", problem, "gymnasium[mujoco]")
    return gym.make(env_id, **kwargs).unwrapped  # no wrappers: we cut episodes ourselves


def rollout(
    env: Any,
    policy: np.ndarray,
    mu: np.ndarray,
    sigma: np.ndarray,
    seed: int,
    max_steps: int,
    record: list[np.ndarray] | None = None,
) -> float:
    """Return of one episode of the linear policy (optionally recording observations)."""
    obs, _ = env.reset(seed=seed)
    total = 0.0
    for _ in range(max_steps):
        if record is not None:
            record.append(obs)
        action = np.clip(policy @ ((obs - mu) / sigma), -1.0, 1.0)
        obs, reward, terminated, truncated, _ = env.step(action)
        total += float(reward)
        if terminated or truncated:
            break
    return total


class LinearPolicyProblem(Problem):
    """Mean return of a linear policy on a gymnasium MuJoCo task, deterministic episodes."""

    def __init__(
        self,
        name: str,
        dim: int,
        instance_seed: int = 0,
        n_episodes: int = 3,
        max_steps: int | None = None,
        stats_episodes: int = 5,
        obs_mean: list[float] | None = None,
        obs_std: list[float] | None = None,
    ) -> None:
        self.name = name
        env_id, n_obs, n_act, normalise, default_steps = ENVS[name]
        if dim != n_obs * n_act:
            raise ValueError(f"{name}: dim must be {n_obs * n_act}, got {dim}")
        if n_episodes < 1 or (max_steps is not None and max_steps < 1) or stats_episodes < 1:
            raise ValueError(f"{name}: n_episodes, max_steps and stats_episodes must be >= 1")
        super().__init__(dim, np.vstack([-np.ones(dim), np.ones(dim)]), instance_seed)
        self.env_id, self.n_obs, self.n_act = env_id, n_obs, n_act
        self.n_episodes = int(n_episodes)
        self.max_steps = int(max_steps) if max_steps is not None else default_steps
        self.stats_episodes = int(stats_episodes)
        self._env = _make_env(name, env_id)
        rng = np.random.default_rng([instance_seed, dim])
        self.episode_seeds = [int(s) for s in rng.integers(0, 2**31 - 1, self.n_episodes)]
        if obs_mean is not None and obs_std is not None:
            mu, sigma = np.asarray(obs_mean, float), np.asarray(obs_std, float)
            if mu.shape != (n_obs,) or sigma.shape != (n_obs,) or np.any(sigma <= 0):
                raise ValueError(f"{name}: obs_mean/obs_std must be {n_obs} values, std > 0")
        elif normalise:
            mu, sigma = self._estimate_stats(rng)
        else:
            mu, sigma = np.zeros(n_obs), np.ones(n_obs)
        self.obs_mean, self.obs_std = mu, sigma
        self._normalise = normalise or obs_mean is not None

    def _estimate_stats(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Observation mean/std over seeded random-policy rollouts without early termination."""
        env = _make_env(self.name, self.env_id, terminate_when_unhealthy=False)
        seen: list[np.ndarray] = []
        zeros, ones = np.zeros(self.n_obs), np.ones(self.n_obs)
        for _ in range(self.stats_episodes):
            policy = rng.uniform(-1.0, 1.0, (self.n_act, self.n_obs))
            seed = int(rng.integers(0, 2**31 - 1))
            rollout(env, policy, zeros, ones, seed, self.max_steps, record=seen)
        obs = np.asarray(seen)
        return obs.mean(axis=0), np.maximum(obs.std(axis=0), STD_FLOOR)

    def policy_matrix(self, x_original: np.ndarray) -> np.ndarray:
        """(actions, observations) matrix of one point of the original box (row-major)."""
        return np.asarray(x_original, dtype=float).reshape(self.n_act, self.n_obs)

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        out = []
        for x in self.to_original(X):
            M = self.policy_matrix(x)
            returns = [
                rollout(self._env, M, self.obs_mean, self.obs_std, s, self.max_steps)
                for s in self.episode_seeds
            ]
            out.append(np.mean(returns))
        return np.asarray(out)

    def _spec_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "n_episodes": self.n_episodes,
            "max_steps": self.max_steps,
            "stats_episodes": self.stats_episodes,
        }
        if self._normalise:
            options["obs_mean"] = [float(v) for v in self.obs_mean]
            options["obs_std"] = [float(v) for v in self.obs_std]
        return options


def _factory(name: str):
    def make(dim: int, instance_seed: int = 0, **options: Any) -> LinearPolicyProblem:
        return LinearPolicyProblem(name, dim, instance_seed, **options)

    make.__doc__ = f"Factory for {name}."
    return make


for _name, (_env_id, _n_obs, _n_act, _norm, _steps) in ENVS.items():
    register(
        ProblemInfo(
            name=_name,
            dims=str(_n_obs * _n_act),
            source=(
                f"gymnasium {_env_id} (MuJoCo) with a linear policy {_n_act}x{_n_obs} in "
                f"[-1, 1] as in LA-MCTS/ARS; mean return of 3 seeded episodes of <= {_steps} "
                f"steps; {'observations normalised by seeded random-rollout statistics' if _norm else 'no state normalisation'}; "
                "no known optimum; needs gymnasium[mujoco]"
            ),
            kind="real-world",
            default_dim=_n_obs * _n_act,
            min_dim=_n_obs * _n_act,
            max_dim=_n_obs * _n_act,
            has_optimum=False,
        ),
        _factory(_name),
    )
