"""Paper 2's policy library: randomized regularized neural policies (RR-TS, RR-LFBO).

The paper-2 pipeline sits next to paper 1's: config and job grid in
``boexplore.pipeline.paper2_grid``, experiment drivers in ``boexplore.pipeline.paper2_experiments``,
tables and claims in ``boexplore.analysis.paper2`` (``tables`` / ``summary`` / ``claims``),
figures in ``boexplore.plotting.paper2``.

Public API (imported lazily so that ``import boexplore.parametric`` stays light):

* ``make_policy(name, **overrides) -> PolicySpec`` and ``PRESETS``;
* ``run_policy(problem, policy, seeds, rounds, n_init=5, noise_std=0.1, method="", bound_check=None)
  -> (trace, bounds | None)`` - the batched finite-domain loop;
* ``run_continuous(problem, policy, seeds, budget, n_init=10, n_candidates=2048, method="")`` - E4;
* ``static_probe(problem, policy, n_data=20, n_draws=64, noise_std=0.1, seed=0)`` - E3;
* ``loglog_slope(cum_regret, start_frac=0.5)``, ``bootstrap_ci`` (re-exported from ``boexplore.analysis.claimkit.stats``);
* ``lfbo_weights(y, gamma=0.33, utility="ei", balance=False)``.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "PolicySpec": "policies",
    "PRESETS": "policies",
    "make_policy": "policies",
    "run_policy": "loop",
    "BoundCheck": "loop",
    "run_continuous": "continuous",
    "static_probe": "probe",
    "loglog_slope": "stats",
    "bootstrap_ci": "boexplore.analysis.claimkit.stats",
    "lfbo_weights": "lfbo",
    "MLPSpec": "mlp",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module = _EXPORTS[name]
        full = module if module.startswith("boexplore.") else f"boexplore.parametric.{module}"
        return getattr(importlib.import_module(full), name)
    raise AttributeError(f"module 'boexplore.parametric' has no attribute {name!r}")
