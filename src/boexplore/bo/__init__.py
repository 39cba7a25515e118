"""BO engine: GP model, acquisition registry, trust region, RAASP, resumable loop.

Public API: ``parse_method(spec) -> MethodSpec``, ``run_bo(problem, method_spec,
seed, budget, n_init, ...) -> pd.DataFrame``, ``METHODS``, ``BOSettings``.
Attributes are imported lazily so ``boexplore --help`` does not load torch.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "MethodSpec": "boexplore.bo.methods",
    "METHODS": "boexplore.bo.methods",
    "parse_method": "boexplore.bo.methods",
    "describe_methods": "boexplore.bo.methods",
    "BOSettings": "boexplore.bo.settings",
    "run_bo": "boexplore.bo.loop",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'boexplore.bo' has no attribute {name!r}")
