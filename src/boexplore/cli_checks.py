"""Up-front checks of command-line arguments, so a bad argument fails before any work.

Each check raises ``ValueError`` naming the argument (``--out``, ``--seed``...), which the
CLI prints as one ``error:`` line (exit 2) instead of a traceback after minutes of work.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def check_min(value: int | None, minimum: int, arg: str) -> None:
    """``arg`` (when given) must be an integer >= ``minimum``."""
    if value is not None and int(value) < minimum:
        raise ValueError(f"{arg} must be >= {minimum}, got {value}")


def check_output_path(path: Path, arg: str) -> None:
    """``path`` can be written: not a directory, parents creatable, directory writable.

    Creates the missing parent directories (the write would create them anyway) and probes
    the directory with a temp file, which also catches read-only file systems for root.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{arg} {path}: is a directory, expected a file path")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"{arg} {path}: {parent} is a file, not a directory")
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ValueError(f"{arg} {path}: cannot write in {path.parent} ({reason})") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise ValueError(f"{arg} {path}: file is not writable")
