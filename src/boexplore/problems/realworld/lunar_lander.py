"""Lunar lander (12-d): tune the 12 constants of gymnasium's hand-written
LunarLander heuristic, the setup of Eriksson et al. (2019, TuRBO).

The controller (re-derived from gymnasium's ``heuristic``) with weights ``w``::

    angle_target = clip(w0*x + w1*vx, -w2, w2);  hover_target = w3*|x|
    angle_todo = w4*(angle_target - angle) - w5*angular_velocity
    hover_todo = w6*(hover_target - y) - w7*vy
    on leg contact: angle_todo = w8, hover_todo = -w9*vy
    action = main engine if hover_todo > max(|angle_todo|, w10),
             else right/left engine if angle_todo < -w11 / > w11, else nothing

Weights live in ``[0, 2]^12`` (as TuRBO / LA-MCTS). The objective is the mean
undiscounted return on gymnasium's ``LunarLander-v3`` (discrete actions) over
``n_episodes`` episodes whose reset seeds are drawn from the instance seed,
each cut at ``max_steps`` steps, so one evaluation is deterministic. No known
optimum (returns >= 200 count as solving the task). Needs ``gymnasium[box2d]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from boexplore.problems.base import Problem, ProblemInfo
from boexplore.problems.realworld.deps import require
from boexplore.problems.registry import register

DIM = 12
UPPER = 2.0
# gymnasium's own heuristic expressed in these 12 weights (a known good controller)
GYMNASIUM_HEURISTIC_WEIGHTS = (0.5, 1.0, 0.4, 0.55, 0.5, 1.0, 0.5, 0.5, 0.0, 0.5, 0.05, 0.05)


def heuristic_action(state: Sequence[float], w: Sequence[float]) -> int:
    """Discrete action (0 none, 1 left, 2 main, 3 right engine) of the parametrised heuristic."""
    x, y, vx, vy, angle, ang_vel, leg1, leg2 = state[:8]
    angle_target = min(max(w[0] * x + w[1] * vx, -w[2]), w[2])
    hover_target = w[3] * abs(x)
    angle_todo = w[4] * (angle_target - angle) - w[5] * ang_vel
    hover_todo = w[6] * (hover_target - y) - w[7] * vy
    if leg1 or leg2:
        angle_todo = w[8]
        hover_todo = -w[9] * vy
    if hover_todo > abs(angle_todo) and hover_todo > w[10]:
        return 2
    if angle_todo < -w[11]:
        return 3
    if angle_todo > w[11]:
        return 1
    return 0


class LunarLanderProblem(Problem):
    """Mean return of the 12-weight heuristic controller on seeded LunarLander-v3 episodes."""

    name = "lunar_lander"

    def __init__(
        self,
        dim: int = DIM,
        instance_seed: int = 0,
        n_episodes: int = 10,
        max_steps: int = 1000,
    ) -> None:
        if dim != DIM:
            raise ValueError(f"lunar_lander: dim must be {DIM}, got {dim}")
        if n_episodes < 1 or max_steps < 1:
            raise ValueError(
                f"lunar_lander: need n_episodes >= 1 and max_steps >= 1, "
                f"got {n_episodes}, {max_steps}"
            )
        module = require("gymnasium.envs.box2d.lunar_lander", self.name, "gymnasium[box2d]")
        super().__init__(DIM, np.array([[0.0] * DIM, [UPPER] * DIM]), instance_seed)
        self.n_episodes = int(n_episodes)
        self.max_steps = int(max_steps)
        rng = np.random.default_rng([instance_seed, 12])
        self.episode_seeds = [int(s) for s in rng.integers(0, 2**31 - 1, self.n_episodes)]
        self._env = module.LunarLander(continuous=False)

    def episode_return(self, weights: Sequence[float], seed: int) -> float:
        """Undiscounted return of one episode with reset seed ``seed``."""
        w = [float(v) for v in weights]
        state, _ = self._env.reset(seed=seed)
        total = 0.0
        for _ in range(self.max_steps):
            state, reward, terminated, truncated, _ = self._env.step(
                heuristic_action(state.tolist(), w)
            )
            total += float(reward)
            if terminated or truncated:
                break
        return total

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        W = self.to_original(X)
        return np.array(
            [np.mean([self.episode_return(w, s) for s in self.episode_seeds]) for w in W]
        )

    def _spec_options(self) -> dict[str, Any]:
        return {"n_episodes": self.n_episodes, "max_steps": self.max_steps}


register(
    ProblemInfo(
        name="lunar_lander",
        dims="12",
        source=(
            "gymnasium LunarLander-v3 (Box2D) with the 12-weight parametrised heuristic "
            "controller of TuRBO (Eriksson et al. 2019); weights in [0, 2]^12; mean return "
            "over 10 episodes seeded from the instance seed, <= 1000 steps each; "
            "no known optimum (>= 200 solves the task); needs gymnasium[box2d]"
        ),
        kind="real-world",
        default_dim=DIM,
        min_dim=DIM,
        max_dim=DIM,
        has_optimum=False,
    ),
    LunarLanderProblem,
)
