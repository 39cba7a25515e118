"""Optional simulator dependencies, imported only when a problem is constructed.

The problems stay registered without their simulator so that listing and
configuration work everywhere; constructing one raises an ImportError that
names the missing package and the pip command that installs it.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, problem: str, pip_name: str) -> ModuleType:
    """Import ``module`` or raise ImportError naming ``problem`` and ``pip install pip_name``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{problem}: needs the optional dependency {pip_name!r} (import of {module!r} "
            f"failed: {exc}); install it with `pip install {pip_name}`"
        ) from exc


def available(module: str) -> bool:
    """True when ``module`` imports (used by tests to skip simulator problems)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
