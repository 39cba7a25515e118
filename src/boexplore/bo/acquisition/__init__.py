"""Acquisition functions: construction (factory), Thompson sampling, proposal with guards.

Attributes are imported lazily, so a module that needs only a torch-free part (the qKG
memory model of the cost model, read when Snakemake plans jobs) does not load BoTorch.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "batch_mode": "boexplore.bo.acquisition.factory",
    "build_acqf": "boexplore.bo.acquisition.factory",
    "propose": "boexplore.bo.acquisition.proposal",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'boexplore.bo.acquisition' has no attribute {name!r}")
