"""Run checkpoints that cannot execute code, cannot be half-written and cannot lie.

Format: one ``.npz`` (read with ``allow_pickle=False``) holding the run's arrays plus
``__meta__`` (a JSON string: format version, the run identity, budget, scalar state) and
``__sha256__`` (over the metadata and every array's name, dtype, shape and bytes). A file
that fails any check is *corrupt*; an old pickle checkpoint is *legacy* and never unpickled.

Writes are atomic (temp file, fsync, rename); the previous checkpoint is kept as
``<path>.prev`` so a damaged latest file falls back to the state one iteration earlier.
A file that cannot be used is never deleted and never retried: ``move_aside`` renames it to
``<path>.corrupt`` / ``<path>.stale-<reason>`` and logs one line saying why.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

LOG = logging.getLogger("boexplore.bo")
FORMAT = "boexplore-checkpoint"
FORMAT_VERSION = 2
_META, _SUM = "__meta__", "__sha256__"
_ZIP_MAGIC = b"PK\x03\x04"
_PICKLE_MAGIC = b"\x80"

#: ``accept(checkpoint)`` -> None to resume, or (tag, why) to move the file aside as stale.
Acceptor = Callable[["Checkpoint"], tuple[str, str] | None]


class CorruptCheckpoint(ValueError):
    """A checkpoint file that is not a complete, intact checkpoint; names the file."""

    def __init__(self, path: Path, reason: str, tag: str = "corrupt") -> None:
        super().__init__(f"checkpoint {path}: {reason}")
        self.path, self.reason, self.tag = path, reason, tag


@dataclass(frozen=True)
class Checkpoint:
    """A verified checkpoint: its arrays and its metadata (``meta["identity"]`` etc.)."""

    arrays: dict[str, np.ndarray]
    meta: dict[str, Any]


def prev_path(path: Path) -> Path:
    """Where the previous good checkpoint of ``path`` is kept."""
    return path.with_name(path.name + ".prev")


def _digest(meta_json: str, arrays: Mapping[str, np.ndarray]) -> str:
    h = hashlib.sha256(meta_json.encode("utf-8"))
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"\0{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def save_checkpoint(path: Path, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """Write ``arrays`` + JSON-able ``meta`` atomically; the old file becomes ``<path>.prev``."""
    path = Path(path)
    meta_json = json.dumps({"format": FORMAT, "format_version": FORMAT_VERSION, **meta})
    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    if any(a.dtype.hasobject for a in arrays.values()) or {_META, _SUM} & set(arrays):
        raise ValueError(f"checkpoint {path}: arrays must be plain numeric/str arrays")
    buf = io.BytesIO()
    np.savez(
        buf, **arrays, **{_META: np.array(meta_json), _SUM: np.array(_digest(meta_json, arrays))}
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(buf.getvalue())
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.replace(path, prev_path(path))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_checkpoint(path: Path) -> Checkpoint:
    """The verified checkpoint at ``path``; ``CorruptCheckpoint`` (tag corrupt/legacy) otherwise."""
    path = Path(path)
    try:
        head = path.read_bytes()[:4]
    except OSError as exc:
        raise CorruptCheckpoint(path, f"cannot be read ({exc})") from None
    if head[:1] == _PICKLE_MAGIC:
        raise CorruptCheckpoint(path, "old pickle format (never loaded)", tag="stale-legacy")
    if head != _ZIP_MAGIC:
        raise CorruptCheckpoint(path, "not a checkpoint archive (empty, truncated or overwritten)")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        meta_json, stored = str(arrays.pop(_META)[()]), str(arrays.pop(_SUM)[()])
        meta = json.loads(meta_json)
    except Exception as exc:  # zip/npy/json damage of any kind: all mean "unusable"
        raise CorruptCheckpoint(path, f"unreadable ({type(exc).__name__}: {exc})") from None
    if _digest(meta_json, arrays) != stored:
        raise CorruptCheckpoint(path, "checksum mismatch (damaged contents)")
    if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise CorruptCheckpoint(path, f"unsupported format {meta.get('format_version')!r}")
    return Checkpoint(arrays, meta)


def _rename_aside(path: Path, tag: str) -> Path:
    target = path.with_name(f"{path.name}.{tag}")
    n = 0
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.{tag}.{n}")
    os.replace(path, target)
    return target


def move_aside(path: Path, tag: str, why: str, with_prev: bool = False) -> Path:
    """Rename ``path`` to ``<path>.<tag>`` (``.1``, ``.2``, ... if taken); log one line.

    ``with_prev``: also move ``<path>.prev`` (same run, so stale for the same reason).
    """
    target = _rename_aside(path, tag)
    extra = ""
    if with_prev and prev_path(path).exists():
        _rename_aside(prev_path(path), tag)
        extra = " (and its .prev)"
    LOG.warning("checkpoint %s not used: %s; moved aside to %s%s", path, why, target.name, extra)
    return target


def load_resumable(path: Path, accept: Acceptor) -> Checkpoint | None:
    """The newest usable checkpoint (``path``, else ``<path>.prev``), or None to start afresh.

    Every candidate that is corrupt, legacy or rejected by ``accept`` is moved aside, so
    the next attempt never meets it again.
    """
    path = Path(path)
    for candidate in (path, prev_path(path)):
        if not candidate.exists():
            continue
        try:
            ckpt = read_checkpoint(candidate)
        except CorruptCheckpoint as exc:
            move_aside(candidate, exc.tag, exc.reason)
            continue
        verdict = accept(ckpt)
        if verdict is None:
            return ckpt
        move_aside(candidate, f"stale-{verdict[0]}", verdict[1], with_prev=candidate == path)
    return None


def remove_checkpoint(path: Path) -> None:
    """Delete a finished run's checkpoint, its ``.prev`` and leftover temp files."""
    path = Path(path)
    for p in (path, prev_path(path), *path.parent.glob(f".{path.name}.*.tmp")):
        p.unlink(missing_ok=True)


def checkpoint_iteration(path: Path) -> int | None:
    """Last iteration stored at ``path`` (None when absent or unusable); for progress/tests."""
    try:
        return int(read_checkpoint(Path(path)).meta["state"]["last_iteration"])
    except (CorruptCheckpoint, KeyError, TypeError, ValueError):
        return None


def default_checkpoint_path(out: Path) -> Path:
    """Checkpoint file next to the output trace: ``<out>.ckpt``."""
    out = Path(out)
    return out.with_name(out.name + ".ckpt")
