"""The BO engine's identity: a version constant plus the libraries that do its numerics.

``ENGINE_VERSION`` is bumped whenever a change can alter a trace's numbers (model fit,
acquisition optimisation, candidate sets, trust region, loop order, seeding). Every state
that outlives a run (checkpoints; per-trace provenance) records ``engine_identity()`` and is
never reused when it differs, so a fixed engine never resumes a run the old one started.

``ENGINE_SOURCES_SHA256`` pins the engine's source files (``engine_source_files()``: every
``bo/**/*.py`` except this module, the CLI and the checkpoint file format, which do not touch
numerics). ``tests/bo/test_engine_identity.py`` recomputes it, so an edit of ``bo/`` without
a decision fails the tests: bump ``ENGINE_VERSION`` if numerics changed, then update the hash
(``python -m boexplore.bo.engine`` prints it).
"""

from __future__ import annotations

import hashlib
import os
from importlib import metadata
from pathlib import Path
from typing import Any

#: Bump when a change in ``bo/`` (or a numerics dependency pin) can change a trace.
ENGINE_VERSION = 1
#: sha256 of ``engine_source_files()`` (see ``engine_sources_sha256``) at ENGINE_VERSION.
ENGINE_SOURCES_SHA256 = "ed165a5cbe6e9b5c0efa29ab8bec24abbad56bdc1f0e30a3c6918556543184f0"
#: Files of ``bo/`` that cannot change a trace's numbers (not hashed).
NON_NUMERIC_FILES: frozenset[str] = frozenset({"engine.py", "cli.py", "checkpoint.py"})
#: Libraries whose version is part of the identity (their numerics are the engine's too).
NUMERIC_PACKAGES: tuple[str, ...] = ("torch", "botorch", "gpytorch", "linear_operator", "numpy")

_BO_DIR = Path(__file__).resolve().parent


def engine_source_files() -> list[Path]:
    """The hashed engine sources, sorted by path relative to ``bo/``."""
    rel = {p: p.relative_to(_BO_DIR).as_posix() for p in _BO_DIR.rglob("*.py")}
    return sorted((p for p, r in rel.items() if r not in NON_NUMERIC_FILES), key=rel.__getitem__)


def engine_sources_sha256() -> str:
    """sha256 over (relative path, bytes) of every engine source file, in sorted order."""
    digest = hashlib.sha256()
    for path in engine_source_files():
        digest.update(path.relative_to(_BO_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def engine_identity() -> dict[str, Any]:
    """``{"engine_version", "<package>": "<version>", ..., "numerics_profile"}`` (JSON-able).

    The numerics profile (``boexplore.numerics``: pinned BLAS/ATen kernels) is part of it, so a
    run started under one profile never resumes under another.
    """
    from boexplore.numerics import PROFILE_VAR

    return {
        "engine_version": ENGINE_VERSION,
        **{p: _version(p) for p in NUMERIC_PACKAGES},
        "numerics_profile": os.environ.get(PROFILE_VAR, "unpinned"),
    }


def stamp_trace(trace: Any) -> Any:
    """``numerics.stamp_trace`` with the engine's identity: what made a BO or paper-2 trace."""
    from boexplore.numerics import stamp_trace as stamp

    return stamp(trace, engine_identity())


if __name__ == "__main__":
    print(engine_sources_sha256())
