"""Problems on binary, categorical and mixed domains (our extension; see ``base``).

Importing this package registers them (``kind = "combinatorial"``): ``labs``, ``maxsat_planted``,
``contamination``, ``ising_sparsification`` (binary), ``pest_control`` (categorical), ``mixed_ackley`` (binary +
continuous). Each exposes ``domain_spec`` for ``boexplore.metrics.domain``.
"""

from boexplore.problems.combinatorial import contamination, ising, labs, maxsat, mixed_ackley, pest
from boexplore.problems.combinatorial.base import CombinatorialProblem

__all__ = [
    "CombinatorialProblem",
    "contamination",
    "ising",
    "labs",
    "maxsat",
    "mixed_ackley",
    "pest",
]
