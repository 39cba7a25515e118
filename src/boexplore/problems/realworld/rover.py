"""Rover trajectory planning (60-d), re-derived from Wang et al. (2018, "Batched
large-scale Bayesian optimization in high-dimensional spaces", AISTATS).

The d = 2k inputs are k control points in the unit square; the rover follows
the clamped uniform cubic B-spline through those control points (so the
trajectory starts at the first and ends at the last control point). The map
is the unit square with axis-aligned square obstacles; start ``s = (0.05, 0.05)``
and goal ``g = (0.95, 0.95)``. Reward (maximised)::

    r = 5 - 20 * (trajectory length inside obstacles)
          - 10 * (||p(0) - s||_1 + ||p(1) - g||_1)

Collision length is integrated on ``n_eval`` equally spaced curve parameters
(trapezoid weights on each chord). Obstacles come from the instance seed:
``n_obstacles`` squares of side ``obstacle_size``, pairwise separated by at least
``gap`` and kept away from start and goal, so the free space is connected.
Known optimum: 5.0 is the supremum (no collision, exact endpoints) and is used
as ``optimum_value``; it is attained by any collision-free spline with the
first/last control points at s/g.

BoTorch's ``TrajectoryPlanning`` (0.17+) was checked and not used: its path is
forced to end at the goal and its cost has no start/goal terms, so it is not
the rover problem of Wang et al.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boexplore.problems.base import Problem, ProblemInfo
from boexplore.problems.registry import register

START = np.array([0.05, 0.05])
GOAL = np.array([0.95, 0.95])
REWARD_OFFSET = 5.0
COLLISION_WEIGHT = 20.0
ENDPOINT_WEIGHT = 10.0


def bspline_basis(n_control: int, n_eval: int, degree: int = 3) -> np.ndarray:
    """(n_eval, n_control) matrix mapping control points to clamped uniform B-spline samples."""
    k = min(degree, n_control - 1)
    inner = np.linspace(0.0, 1.0, n_control - k + 1)
    knots = np.concatenate([np.zeros(k), inner, np.ones(k)])
    t = np.linspace(0.0, 1.0, n_eval)
    from scipy.interpolate import BSpline  # here: scipy.interpolate costs ~1 s to import

    return BSpline(knots, np.eye(n_control), k)(t)


def generate_obstacles(
    seed: int, n_obstacles: int, size: float, gap: float, clearance: float = 0.12
) -> np.ndarray:
    """(n, 2, 2) array of [lower corner, upper corner] of disjoint, separated squares."""
    if n_obstacles < 0 or not 0 < size < 0.5 or gap < 0:
        raise ValueError(f"rover: bad obstacle settings n={n_obstacles}, size={size}, gap={gap}")
    if n_obstacles * (size + gap) ** 2 > 0.5:  # cannot pack that many separated squares
        raise ValueError(f"rover: cannot place {n_obstacles} obstacles of size {size}")
    rng = np.random.default_rng([seed, 60])
    lows: list[np.ndarray] = []
    for _ in range(20_000):
        if len(lows) == n_obstacles:
            break
        low = rng.uniform(gap, 1.0 - gap - size, size=2)
        centre = low + size / 2
        if min(np.abs(centre - START).max(), np.abs(centre - GOAL).max()) < clearance + size / 2:
            continue
        if all(np.abs(low - other).max() >= size + gap for other in lows):
            lows.append(low)
    if len(lows) < n_obstacles:
        raise ValueError(f"rover: cannot place {n_obstacles} obstacles of size {size}")
    lo = np.array(lows).reshape(-1, 2)
    return np.stack([lo, lo + size], axis=1)


class RoverProblem(Problem):
    """Wang et al. style rover trajectory reward on [0,1]^d (d even)."""

    name = "rover"

    def __init__(
        self,
        dim: int = 60,
        instance_seed: int = 0,
        n_obstacles: int = 15,
        obstacle_size: float = 0.1,
        gap: float = 0.02,
        n_eval: int = 1000,
    ) -> None:
        if dim < 4 or dim % 2:
            raise ValueError(f"rover: dim must be even and >= 4, got {dim}")
        if n_eval < 10:
            raise ValueError(f"rover: n_eval must be >= 10, got {n_eval}")
        super().__init__(
            dim,
            np.vstack([np.zeros(dim), np.ones(dim)]),
            instance_seed=instance_seed,
            optimum_value=REWARD_OFFSET,
        )
        self.n_obstacles = int(n_obstacles)
        self.obstacle_size = float(obstacle_size)
        self.gap = float(gap)
        self.n_eval = int(n_eval)
        self.obstacles = generate_obstacles(instance_seed, self.n_obstacles, obstacle_size, gap)
        self._basis = bspline_basis(dim // 2, self.n_eval)

    def trajectory(self, X_unit: np.ndarray) -> np.ndarray:
        """Sampled trajectories (n, n_eval, 2) for unit-cube points."""
        X = self.validate_input(X_unit)
        control = X.reshape(X.shape[0], self.dim // 2, 2)
        return np.einsum("tk,nkc->ntc", self._basis, control)

    def collision_length(self, paths: np.ndarray) -> np.ndarray:
        """Length (n,) of each sampled path inside obstacles (trapezoid rule on chords)."""
        lo, hi = self.obstacles[:, 0], self.obstacles[:, 1]
        inside = np.all((paths[..., None, :] >= lo) & (paths[..., None, :] <= hi), axis=-1)
        hit = inside.any(axis=-1).astype(float)  # (n, T)
        chords = np.linalg.norm(np.diff(paths, axis=1), axis=-1)  # (n, T-1)
        return np.sum(chords * 0.5 * (hit[:, 1:] + hit[:, :-1]), axis=1)

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], 8):  # chunks keep the (n, T, m, 2) test small
            paths = self.trajectory(X[start : start + 8])
            miss = np.abs(paths[:, 0] - START).sum(axis=1) + np.abs(paths[:, -1] - GOAL).sum(axis=1)
            out[start : start + 8] = (
                REWARD_OFFSET
                - COLLISION_WEIGHT * self.collision_length(paths)
                - ENDPOINT_WEIGHT * miss
            )
        return out

    def _spec_options(self) -> dict[str, Any]:
        return {
            "n_obstacles": self.n_obstacles,
            "obstacle_size": self.obstacle_size,
            "gap": self.gap,
            "n_eval": self.n_eval,
        }


register(
    ProblemInfo(
        name="rover",
        dims="even >= 4 (default 60)",
        source=(
            "Rover trajectory planning re-derived from Wang et al. 2018 (EBO): cubic B-spline "
            "through d/2 control points in [0,1]^2, reward 5 - 20*collision length "
            "- 10*(L1 start + goal misses); 15 seeded square obstacles; optimum 5.0 "
            "(supremum, reached by collision-free paths ending exactly at start/goal)"
        ),
        kind="real-world",
        default_dim=60,
        min_dim=4,
        has_optimum=True,
    ),
    RoverProblem,
)
