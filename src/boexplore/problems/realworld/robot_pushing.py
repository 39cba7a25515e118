"""Two-robot pushing (14-d) in Box2D, re-derived from the description in
Wang et al. (2017 "Max-value entropy search", 2018 "Batched large-scale BO").

A top-down table (no gravity; sliding friction via Box2D friction joints to a
static ground body) holds two objects: a disc of radius 1 starting at
(-3, 0) and a 1.6 x 1.6 square starting at (3, 0). Two rectangular robot
hands (0.2 x 2, kinematic, so contacts cannot deflect them) are each driven by
7 parameters, in this order::

    x, y in [-5, 5]          start position
    angle in [0, 2 pi]       start orientation
    vx, vy in [-10, 10]      linear velocity while pushing
    omega in [-5, 5]         angular velocity while pushing
    duration in [0.2, 3] s   pushing time, after which the hand stops

Goals for the two objects are drawn uniformly from [-5, 5]^2 with the
instance seed. The simulation runs at 100 Hz until both hands have stopped
plus 1 s for the objects to slide out. Reward (maximised)::

    r = sum_i ( ||o_i(0) - g_i|| - ||o_i(T) - g_i|| )

i.e. the progress both objects make towards their goals. Its supremum,
``reward_upper_bound = sum_i ||o_i(0) - g_i||`` (both objects exactly on
their goals), is not known to be attainable, so ``optimum_value`` is None.
Hands do not collide with each other (kinematic bodies). Needs ``box2d``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boexplore.problems.base import Problem, ProblemInfo
from boexplore.problems.realworld.deps import require
from boexplore.problems.registry import register

DIM = 14
HZ = 100
SETTLE_SECONDS = 1.0
FRICTION = 0.5  # Coulomb coefficient of the objects on the table (g = 9.81)
OBJECT_STARTS = np.array([[-3.0, 0.0], [3.0, 0.0]])
HAND_LOW = [-5.0, -5.0, 0.0, -10.0, -10.0, -5.0, 0.2]
HAND_HIGH = [5.0, 5.0, 2.0 * np.pi, 10.0, 10.0, 5.0, 3.0]


def goals_for_seed(seed: int) -> np.ndarray:
    """(2, 2) goal positions of the disc and the square for an instance seed."""
    return np.random.default_rng([seed, 14]).uniform(-5.0, 5.0, size=(2, 2))


def simulate_push(params: np.ndarray, box2d: Any) -> np.ndarray:
    """Final (2, 2) object positions after both hands push with ``params`` (14,)."""
    world = box2d.b2World(gravity=(0.0, 0.0), doSleep=True)
    ground = world.CreateStaticBody(position=(0.0, 0.0))
    objects = []
    for k, start in enumerate(OBJECT_STARTS):
        body = world.CreateDynamicBody(position=tuple(start))
        if k == 0:
            body.CreateCircleFixture(radius=1.0, density=1.0, friction=0.3)
        else:
            body.CreatePolygonFixture(box=(0.8, 0.8), density=1.0, friction=0.3)
        max_force = FRICTION * 9.81 * body.mass
        world.CreateFrictionJoint(
            bodyA=ground,
            bodyB=body,
            localAnchorA=tuple(start),
            localAnchorB=(0.0, 0.0),
            maxForce=max_force,
            maxTorque=max_force * 0.5,
        )
        objects.append(body)
    hands, stop_ticks = [], []
    for h in range(2):
        x, y, angle, vx, vy, omega, duration = (float(v) for v in params[7 * h : 7 * h + 7])
        hand = world.CreateKinematicBody(position=(x, y), angle=angle)
        hand.CreatePolygonFixture(box=(0.1, 1.0), density=1.0, friction=0.3)
        hand.linearVelocity = (vx, vy)
        hand.angularVelocity = omega
        hands.append(hand)
        stop_ticks.append(int(round(duration * HZ)))
    for tick in range(max(stop_ticks) + int(SETTLE_SECONDS * HZ)):
        for hand, stop in zip(hands, stop_ticks, strict=True):
            if tick == stop:
                hand.linearVelocity = (0.0, 0.0)
                hand.angularVelocity = 0.0
        world.Step(1.0 / HZ, 10, 10)
    return np.array([[o.position[0], o.position[1]] for o in objects])


class RobotPushingProblem(Problem):
    """Progress of two pushed objects towards seeded goals (Box2D)."""

    name = "robot_pushing"

    def __init__(self, dim: int = DIM, instance_seed: int = 0) -> None:
        if dim != DIM:
            raise ValueError(f"robot_pushing: dim must be {DIM}, got {dim}")
        self._box2d = require("Box2D", self.name, "box2d")
        super().__init__(DIM, np.array([HAND_LOW * 2, HAND_HIGH * 2]), instance_seed)
        self.goals = goals_for_seed(instance_seed)
        self.initial_distances = np.linalg.norm(OBJECT_STARTS - self.goals, axis=1)
        self.reward_upper_bound = float(self.initial_distances.sum())

    def final_positions(self, X_unit: np.ndarray) -> np.ndarray:
        """(n, 2, 2) final object positions for unit-cube points."""
        X = self.to_original(self.validate_input(X_unit))
        return np.stack([simulate_push(x, self._box2d) for x in X])

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        final = self.final_positions(X)
        remaining = np.linalg.norm(final - self.goals[None], axis=2)
        return np.sum(self.initial_distances[None] - remaining, axis=1)

    def _spec_options(self) -> dict[str, Any]:
        return {}


register(
    ProblemInfo(
        name="robot_pushing",
        dims="14",
        source=(
            "Two-robot pushing re-derived from Wang et al. 2017/2018 in Box2D: two kinematic "
            "hands (position, angle, velocity, angular velocity, duration each) push a disc "
            "and a square towards goals drawn from the instance seed; reward = total progress "
            "towards the goals; supremum = sum of initial distances (not known attainable); "
            "needs box2d"
        ),
        kind="real-world",
        default_dim=DIM,
        min_dim=DIM,
        max_dim=DIM,
        has_optimum=False,
    ),
    RobotPushingProblem,
)
