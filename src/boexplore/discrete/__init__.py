"""BO and model-free search on binary, categorical and mixed domains (our extension).

- ``methods``: the method specs (``random``, ``sa``, ``logei``, ``pi``, ``ucb(beta=B)``,
  ``greedy``, ``ts``);
- ``search``: random search and simulated annealing on raw domain values;
- ``gp``: BoTorch's mixed / categorical GP, the acquisition functions and their optimiser;
- ``loop``: one run as a trace in the continuous engine's layout (raw values in ``x_*``).

Kept out of ``bo/`` (whose sources are hashed into every continuous trace's identity).
"""

from boexplore.discrete.loop import run_discrete
from boexplore.discrete.methods import DiscreteMethod, parse_discrete_method

__all__ = ["DiscreteMethod", "parse_discrete_method", "run_discrete"]
