"""Real-world problems (Lasso, rover, robot pushing, lunar lander, MuJoCo).

Importing this package registers them. Problems whose simulator package
(Box2D, gymnasium, mujoco) is missing stay registered and raise an
ImportError naming the dependency when constructed (see ``deps.py``).
"""

from boexplore.problems.realworld import (
    lasso,
    lunar_lander,
    mujoco_policies,
    robot_pushing,
    rover,
)

__all__ = ["lasso", "lunar_lander", "mujoco_policies", "robot_pushing", "rover"]
