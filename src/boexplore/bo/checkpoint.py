"""Atomic, versioned run checkpoints (pickle of plain Python / numpy objects).

A checkpoint holds everything needed to continue a run exactly: the observed
points and values, per-evaluation bookkeeping, the trust-region state and
the warm-start hyperparameters. Each iteration's randomness is derived from
(seed, iteration), so no RNG state needs to be stored.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from boexplore.io import atomic_write

CHECKPOINT_VERSION = 1


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """Atomically store ``state`` (must be picklable) with a version tag."""
    payload = {"version": CHECKPOINT_VERSION, **state}
    atomic_write(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL), path, fsync=True)


def load_checkpoint(path: Path) -> dict[str, Any] | None:
    """The stored state, or None when ``path`` does not exist; a bad version raises ValueError."""
    path = Path(path)
    if not path.exists():
        return None
    with open(path, "rb") as fh:
        state = pickle.load(fh)
    if not isinstance(state, dict) or state.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"checkpoint {path} has an unsupported format/version")
    return state


def default_checkpoint_path(out: Path) -> Path:
    """Checkpoint file next to the output trace: ``<out>.ckpt``."""
    out = Path(out)
    return out.with_name(out.name + ".ckpt")
