"""One place for writing results: atomic writes by file suffix, and provenance sidecars.

``atomic_write(obj, path)`` writes to a temp file in the target directory and renames it
into place, so a reader (or a killed Snakemake job) never sees half a file. What is written
follows the suffix:

=====================  ==============================================================
suffix                 object
=====================  ==============================================================
``.parquet``           pandas DataFrame (no index)
``.csv``               pandas DataFrame (no index) or text
``.json``              JSON-serialisable object (indent 2) or text
``.png .pdf .svg`` …   matplotlib Figure (``bbox_inches="tight"``; ``dpi`` keyword)
``.npy`` / ``.npz``    array / mapping of arrays
anything else          ``str`` (UTF-8) or ``bytes`` (``fsync=True``: flushed to disk first)
=====================  ==============================================================

``write_sidecar`` records, next to a figure, its inputs with sha256, the config section,
package versions, the git commit of the code and the run's provenance manifest
(``results/<run>/tables/provenance.json``: every trace, its metrics and problem spec).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import subprocess
import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

PathLike = str | os.PathLike
#: Figure formats matplotlib writes (``savefig`` picks the format from the suffix).
FIGURE_SUFFIXES: tuple[str, ...] = (
    ".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp",
)  # fmt: skip
TRACKED_PACKAGES: tuple[str, ...] = (
    "boexplore", "numpy", "scipy", "pandas", "matplotlib", "torch", "botorch", "gpytorch",
    "snakemake",
)  # fmt: skip
#: Where a run keeps its provenance manifest, relative to ``results/<run>``.
MANIFEST = Path("tables") / "provenance.json"


def atomic_write(obj: Any, path: PathLike, **options: Any) -> Path:
    """Write ``obj`` to ``path`` atomically, the format chosen by the suffix (module docstring).

    ``options`` go to the writer (e.g. ``dpi=150`` for figures). Returns ``Path(path)``.
    """
    target = Path(path)
    writer = _writer(obj, target.suffix.lower())
    return _replace_into(target, lambda tmp: writer(obj, tmp, **options))


def atomic_write_text(text: str, path: PathLike) -> Path:
    """Write ``text`` (UTF-8) atomically whatever the suffix."""
    if not isinstance(text, str):
        raise TypeError(f"atomic_write_text expects str, got {type(text).__name__}")
    if "\n" in os.fspath(path):
        raise ValueError(
            "atomic_write_text(text, path): the path has a newline (arguments swapped?)"
        )
    return _replace_into(Path(path), lambda tmp: _write_text(text, tmp))


def _replace_into(target: Path, write: Callable[[Path], None]) -> Path:
    """Run ``write(tmp)`` on a temp file next to ``target``, then rename it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # Unique per process and call; the suffix is kept so matplotlib picks the format, and the
    # file is created with the usual permissions (mkstemp would make it owner-only).
    tmp = target.with_name(f".{target.stem}.{os.getpid()}.{uuid.uuid4().hex[:8]}{target.suffix}")
    try:
        write(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def _writer(obj: Any, suffix: str) -> Callable[..., None]:
    if isinstance(obj, bytes):
        return _write_bytes
    if isinstance(obj, str) and suffix not in FIGURE_SUFFIXES + (".parquet", ".npy", ".npz"):
        return _write_text
    if suffix == ".parquet":
        return _write_parquet
    if suffix == ".csv":
        return _write_csv
    if suffix == ".json":
        return _write_json
    if suffix in FIGURE_SUFFIXES:
        return _write_figure
    if suffix == ".npy":
        return _write_npy
    if suffix == ".npz":
        return _write_npz
    raise ValueError(
        f"atomic_write: cannot write {type(obj).__name__} to a {suffix or 'suffix-less'} file"
    )


def _write_bytes(obj: bytes, tmp: Path, fsync: bool = False, **_: Any) -> None:
    with open(tmp, "wb") as fh:
        fh.write(obj)
        if fsync:  # on disk before the rename (checkpoints that must survive a node crash)
            fh.flush()
            os.fsync(fh.fileno())


def _write_text(obj: str, tmp: Path, **_: Any) -> None:
    tmp.write_text(obj, encoding="utf-8")


def _write_parquet(df: Any, tmp: Path, **options: Any) -> None:
    _require_frame(df, ".parquet")
    df.to_parquet(tmp, index=False, **options)  # e.g. compression="zstd"


def _write_csv(df: Any, tmp: Path, **_: Any) -> None:
    _require_frame(df, ".csv")
    df.to_csv(tmp, index=False)


def _write_json(obj: Any, tmp: Path, **_: Any) -> None:
    tmp.write_text(json.dumps(obj, indent=2, default=str), encoding="utf-8")


def _write_figure(fig: Any, tmp: Path, **options: Any) -> None:
    if not hasattr(fig, "savefig"):
        raise ValueError(f"atomic_write: {tmp.suffix} needs a matplotlib Figure")
    fig.savefig(tmp, **{"bbox_inches": "tight", **options})


def _write_npy(arr: Any, tmp: Path, **_: Any) -> None:
    import numpy as np

    np.save(tmp, np.asarray(arr), allow_pickle=False)


def _write_npz(arrays: Mapping[str, Any], tmp: Path, **_: Any) -> None:
    import numpy as np

    with open(tmp, "wb") as fh:  # a file handle: np.savez would append ".npz" to a name
        np.savez(fh, **dict(arrays))


def _require_frame(df: Any, suffix: str) -> None:
    if not hasattr(df, "to_parquet"):
        raise ValueError(
            f"atomic_write: {suffix} needs a pandas DataFrame, got {type(df).__name__}"
        )


# --- provenance --------------------------------------------------------------------------------
def sha256_file(path: PathLike, chunk: int = 1 << 20) -> str:
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


@functools.cache
def git_state(where: str | None = None) -> dict[str, Any]:
    """``{"commit": sha or None, "dirty": bool or None}`` of the repository holding ``where``.

    ``where`` defaults to the working directory (the workflow's checkout), then this
    package's source directory; ``BOEXPLORE_GIT_COMMIT`` overrides (e.g. a cluster job
    without git). Never raises: outside a repository both fields are None.
    """
    if commit := os.environ.get("BOEXPLORE_GIT_COMMIT"):
        return {"commit": commit, "dirty": None}
    for base in [where] if where else [os.getcwd(), str(Path(__file__).resolve().parent)]:
        head = _git(base, "rev-parse", "HEAD")
        if head:
            status = _git(base, "status", "--porcelain", "--untracked-files=no")
            return {"commit": head, "dirty": None if status is None else bool(status)}
    return {"commit": None, "dirty": None}


def _git(cwd: str, *args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def run_manifest(inputs: Iterable[PathLike]) -> Path | None:
    """``results/<run>/tables/provenance.json`` of the first input under ``results/<run>/``."""
    for p in inputs:
        parts = Path(p).parts
        if "results" in parts[:-2]:
            i = parts.index("results")
            return Path(*parts[: i + 2]) / MANIFEST
    return None


def sidecar_path(figure_path: PathLike) -> Path:
    """``figures/x/name.png`` -> ``figures/x/name.json``."""
    return Path(figure_path).with_suffix(".json")


def write_sidecar(
    figure_path: PathLike,
    inputs: Iterable[PathLike],
    config_section: Mapping[str, Any] | None = None,
    outputs: Iterable[PathLike] | None = None,
    extra: Mapping[str, Any] | None = None,
    manifest: PathLike | None = None,
) -> Path:
    """Write the provenance JSON next to ``figure_path`` (atomically) and return its path.

    ``manifest`` is the run's provenance manifest; by default the one of the run the
    inputs come from. It is recorded with its sha256 when it exists, else as None.
    """
    inputs = list(inputs)
    manifest_path = Path(manifest) if manifest is not None else run_manifest(inputs)
    record = {
        "figure": str(figure_path),
        "outputs": [str(p) for p in (outputs or [figure_path])],
        "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "inputs": [{"path": str(p), "sha256": sha256_file(p)} for p in inputs],
        "config": dict(config_section or {}),
        "git": git_state(),
        "provenance": (
            {"path": str(manifest_path), "sha256": sha256_file(manifest_path)}
            if manifest_path is not None and manifest_path.is_file()
            else None
        ),
        "packages": package_versions(),
        "python": platform.python_version(),
    }
    if extra:
        record["extra"] = dict(extra)
    return atomic_write(record, sidecar_path(figure_path))
