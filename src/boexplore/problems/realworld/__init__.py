"""Real-world problems (Lasso, rover, robot pushing, lunar lander, MuJoCo).

Importing this package registers them. Problems whose simulator package
(Box2D, gymnasium, mujoco) is missing stay registered and raise a clear
error naming the dependency when constructed.
"""

from boexplore.problems.realworld import lasso, rover

__all__ = ["lasso", "rover"]
