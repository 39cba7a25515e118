"""Provenance sidecars: every figure gets ``<figure>.json`` naming its inputs.

The sidecar lists each input file with its sha256, the config section used and
the versions of the packages that produced the figure, so any figure can be
traced back to the traces and problem specs it came from.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

TRACKED_PACKAGES = ("boexplore", "numpy", "scipy", "pandas", "matplotlib", "torch", "botorch", "gpytorch", "snakemake")


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def package_versions(names: Iterable[str] = TRACKED_PACKAGES) -> dict[str, str | None]:
    """Installed version of each package (None when absent)."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def sidecar_path(figure_path: str | os.PathLike) -> Path:
    """``figures/x/name.png`` -> ``figures/x/name.json``."""
    return Path(figure_path).with_suffix(".json")


def write_sidecar(
    figure_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike],
    config_section: Mapping[str, Any] | None = None,
    outputs: Iterable[str | os.PathLike] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write the provenance JSON next to ``figure_path`` (atomically) and return its path."""
    record = {
        "figure": str(figure_path),
        "outputs": [str(p) for p in (outputs or [figure_path])],
        "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "inputs": [{"path": str(p), "sha256": sha256_file(p)} for p in inputs],
        "config": dict(config_section or {}),
        "packages": package_versions(),
        "python": platform.python_version(),
    }
    if extra:
        record["extra"] = dict(extra)
    target = sidecar_path(figure_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=2, default=str))
    os.replace(tmp, target)
    return target
