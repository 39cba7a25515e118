"""Integrity of a data release: every released file checked against its manifest before use.

A release root (``data/<tier>/traces``, files ``<problem>/<method>/<chunk>.parquet``) has its
manifest next to it, in the root's parent: ``data/<tier>/manifest.csv`` (one row per trace file:
``problem, method, chunk, rows, seeds, sha256``, identity columns; written by
``python -m boexplore.pipeline.release manifest``) and the manifest's own hash
``data/<tier>/manifest.sha256`` (``sha256sum`` format: the sha256 of ``manifest.csv`` with LF
line endings, so ``cd data/<tier> && sha256sum -c manifest.sha256`` checks it too). An edited
manifest row is therefore caught as surely as an edited trace.

Where files are checked:

- the workflow, while it builds the job graph: a ``restore_run`` or ``bo_run`` job whose
  (problem, method) cell holds damage in one of the releases it restores or extends from is
  refused (:func:`check_job_release`; both rules refuse, so Snakemake cannot fall back to BO);
- every job that reads a released file (``release.restore_trace`` / ``restore_seeds`` /
  ``read_released``): :func:`check_file` before reading, so nothing is written from a damaged
  file;
- ``boexplore verify --integrity``: the whole release, its tables and figures (:func:`audit_release`,
  :func:`audit_figures`), in seconds and without BO; CI runs it on every committed release.

Damage is a file whose sha256 is not the manifest's, a file the manifest does not list, a
manifest row whose file is missing, or a manifest that does not match its hash (or has none).
Each is refused with one message naming the file, the expected and found sha256 and the ways
out: restore the file from git, or drop it from the release so the job is re-made with BO
(``python -m boexplore.pipeline.release drop FILE``). A release root without any
``manifest.csv`` (an ad-hoc release of one's own) is used unchecked, with a warning; a root
that does not exist is no release (the documented way to re-run BO is to move it away).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("boexplore.pipeline")

MANIFEST_NAME = "manifest.csv"
SEAL_NAME = "manifest.sha256"
#: Columns of a manifest row that describe the file (the rest is identity / provenance).
KEY = ("problem", "method", "chunk")


class ReleaseIntegrityError(ValueError):
    """A released file (or its manifest) does not match the release manifest."""


@dataclass(frozen=True)
class Damage:
    """One damaged file of a release: what is wrong and how to get out of it."""

    file: Path
    problem: str
    manifest: Path
    fixes: tuple[str, ...] = field(default=())

    def message(self) -> str:
        ways = "".join(f"\n  {i}. {fix}" for i, fix in enumerate(self.fixes, 1))
        return f"{self.problem}{ways}"


def manifest_path(root: str | Path) -> Path:
    """The manifest of release root ``root`` (``data/x/traces`` -> ``data/x/manifest.csv``)."""
    return Path(root).parent / MANIFEST_NAME


def seal_path(manifest: str | Path) -> Path:
    """The file holding the manifest's own sha256 (``manifest.sha256`` beside it)."""
    return Path(manifest).with_name(SEAL_NAME)


def release_root_of(path: str | Path) -> Path:
    """The release root a trace file ``<root>/<problem>/<method>/<chunk>.parquet`` lives in."""
    return Path(path).parent.parent.parent


def manifest_digest(manifest: str | Path) -> str:
    """sha256 of a manifest's bytes with CRLF read as LF (a Windows checkout hashes the same)."""
    return hashlib.sha256(Path(manifest).read_bytes().replace(b"\r\n", b"\n")).hexdigest()


def sha256_file(path: str | Path) -> str:
    from boexplore.io import sha256_file as _sha

    return _sha(path)


def write_seal(manifest: str | Path) -> Path:
    """Write ``manifest.sha256`` for ``manifest`` as it is now; returns its path."""
    from boexplore.io import atomic_write_text

    manifest = Path(manifest)
    return atomic_write_text(f"{manifest_digest(manifest)}  {manifest.name}\n", seal_path(manifest))


def read_seal(manifest: str | Path) -> str | None:
    """The sha256 recorded for ``manifest`` (None when its seal file is missing or empty)."""
    path = seal_path(manifest)
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8").split()
    return text[0].lower() if text else None


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def read_manifest(manifest: str | Path) -> dict[tuple[str, str, str], dict[str, str]]:
    """Rows of a manifest keyed by (problem, method, chunk), every value a string."""
    return _read_manifest(str(manifest), _stat(Path(manifest)))


@functools.lru_cache(maxsize=64)
def _read_manifest(path: str, _stamp: object) -> dict[tuple[str, str, str], dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return {tuple(row[k] for k in KEY): row for row in rows}  # type: ignore[misc]


# --- fixes named in every message --------------------------------------------------------------
def _drop_cmd(file: Path) -> str:
    return f"python -m boexplore.pipeline.release drop {file}"


def _fixes_changed(file: Path) -> tuple[str, ...]:
    return (
        f"restore the committed file: git checkout -- {file}",
        f"or re-make this job with BO: {_drop_cmd(file)} (deletes the file and its manifest "
        "row); the workflow then runs the job's BO (bo_run) instead of restoring it, and "
        "`release export` + `release manifest` put the new trace into the release",
    )


def _fixes_missing(file: Path) -> tuple[str, ...]:
    return (
        f"restore the committed file: git checkout -- {file}",
        f"or re-make this job with BO: {_drop_cmd(file)} (removes its manifest row); the "
        "workflow then runs the job's BO (bo_run) instead of restoring it",
    )


def _fixes_unlisted(file: Path, root: Path, manifest: Path) -> tuple[str, ...]:
    return (
        f"restore the committed release: remove the file (rm {file}; `git status` shows it "
        "as untracked)",
        "or, if it is a trace you made and exported on purpose, list it in the manifest: "
        f"python -m boexplore.pipeline.release manifest {root} {manifest}",
    )


def _fixes_manifest(manifest: Path, root: Path) -> tuple[str, ...]:
    seal = seal_path(manifest)
    return (
        f"restore the committed manifest: git checkout -- {manifest} {seal}",
        "or, if the release's files changed on purpose, rebuild the manifest from them: "
        f"python -m boexplore.pipeline.release manifest {root} {manifest} --accept-changed",
    )


def _fixes_unsealed(manifest: Path, root: Path) -> tuple[str, ...]:
    return (
        f"restore the committed hash file: git checkout -- {seal_path(manifest)}",
        "or seal the manifest as it is (every row is checked against its file first): "
        f"python -m boexplore.pipeline.release seal {manifest}",
    )


# --- what is wrong -----------------------------------------------------------------------------
def _describe(path: Path) -> str:
    """`` 16 rows, seeds 0 1`` of a readable trace file, or why it cannot be read."""
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=["seed"])
        seeds = sorted({int(s) for s in table.column("seed").to_pylist()})
        return f"{table.num_rows} rows, seeds {' '.join(map(str, seeds))}"
    except Exception as exc:  # noqa: BLE001 - any reader error is the answer
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"unreadable ({first[:120]})"


def manifest_damage(root: str | Path) -> list[Damage]:
    """Damage of the manifest itself (no hash file, or a hash that does not match); [] when
    it is intact or when the release has no manifest at all."""
    root = Path(root)
    manifest = manifest_path(root)
    if not manifest.is_file():
        return []
    expected = read_seal(manifest)
    if expected is None:
        return [
            Damage(
                manifest,
                f"release manifest {manifest} has no hash file {seal_path(manifest)}, so "
                "an edited manifest could not be told from the committed one; nothing is "
                "restored from this release.",
                manifest,
                _fixes_unsealed(manifest, root),
            )
        ]
    found = manifest_digest(manifest)
    if found != expected:
        return [
            Damage(
                manifest,
                f"release manifest {manifest} does not match its hash "
                f"({seal_path(manifest)}): sha256 expected {expected}, found {found}. The "
                "manifest was edited or damaged, so no file of this release is trusted; "
                "nothing is restored from it.",
                manifest,
                _fixes_manifest(manifest, root),
            )
        ]
    return []


def file_damage(
    path: Path, row: Mapping[str, str] | None, manifest: Path, deep: bool = False
) -> Damage | None:
    """How file ``path`` differs from its manifest ``row`` (None: it matches). ``deep`` also
    compares row count and seeds when the sha256 matches (``verify --integrity``)."""
    root = release_root_of(path)
    if row is None:
        if not path.is_file():
            return None
        return Damage(
            path,
            f"release file {path} is not listed in its manifest {manifest} (found sha256 "
            f"{sha256_file(path)}, {_describe(path)}); nothing is restored from it.",
            manifest,
            _fixes_unlisted(path, root, manifest),
        )
    expected = row.get("sha256", "")
    if not path.is_file():
        return Damage(
            path,
            f"release file {path} is listed in its manifest {manifest} (sha256 expected "
            f"{expected}, {row.get('rows')} rows, seeds {row.get('seeds')}) but is missing "
            "(found: no file); nothing is restored for it.",
            manifest,
            _fixes_missing(path),
        )
    found = sha256_file(path)
    if found != expected:
        return Damage(
            path,
            f"release file {path} does not match its manifest {manifest}: sha256 expected "
            f"{expected}, found {found} (the file: {_describe(path)}; the manifest: "
            f"{row.get('rows')} rows, seeds {row.get('seeds')}). Nothing was restored from it.",
            manifest,
            _fixes_changed(path),
        )
    if deep:
        have = _describe(path)
        want = f"{row.get('rows')} rows, seeds {row.get('seeds')}"
        if have != want:
            return Damage(
                path,
                f"release file {path} matches its sha256 but not its manifest row in "
                f"{manifest}: the file holds {have}, the manifest lists {want}.",
                manifest,
                _fixes_manifest(manifest, root),
            )
    return None


def _key(root: Path, path: Path) -> tuple[str, str, str]:
    rel = path.relative_to(root)
    return (rel.parts[0], rel.parts[1], rel.stem)


def _file_of(root: Path, key: Sequence[str]) -> Path:
    return root / key[0] / key[1] / f"{key[2]}.parquet"


def audit_cell(root: str | Path, problem: str, method: str) -> list[Damage]:
    """Every damage of release ``root`` that touches the jobs of (``problem``, ``method``):
    the manifest itself, listed files of the cell that are missing or changed, files of the
    cell the manifest does not list. [] for a root without a manifest or that does not exist."""
    root = Path(root)
    cell = root / problem / method
    files = sorted(cell.glob("*.parquet")) if cell.is_dir() else []
    manifest = manifest_path(root)
    stamp = (
        _stat(manifest),
        _stat(seal_path(manifest)),
        tuple((p.name, _stat(p)) for p in files),
    )
    return list(_audit_cell(str(root), problem, method, stamp))


@functools.lru_cache(maxsize=4096)
def _audit_cell(root_s: str, problem: str, method: str, _stamp: object) -> tuple[Damage, ...]:
    root = Path(root_s)
    manifest = manifest_path(root)
    if not root.is_dir() or not manifest.is_file():
        return ()
    bad = manifest_damage(root)
    if bad:
        return tuple(bad)
    rows = read_manifest(manifest)
    cell = root / problem / method
    listed = {k for k in rows if k[0] == problem and k[1] == method}
    present = {_key(root, p) for p in cell.glob("*.parquet")} if cell.is_dir() else set()
    out = []
    for key in sorted(listed | present):
        damage = file_damage(_file_of(root, key), rows.get(key), manifest)
        if damage is not None:
            out.append(damage)
    return tuple(out)


def raise_for(damages: Sequence[Damage], context: str = "") -> None:
    """Raise one :class:`ReleaseIntegrityError` naming every damage (nothing when empty)."""
    if not damages:
        return
    head = context or (
        "damaged data release" if len(damages) == 1 else f"{len(damages)} damaged release files"
    )
    body = "\n".join(d.message() for d in damages)
    raise ReleaseIntegrityError(
        f"{head}:\n{body}\n(check a whole release: boexplore verify --integrity --configfile "
        "<config>)"
    )


@functools.cache
def _warn_unchecked(root: str) -> None:
    log.warning(
        "release %s has no manifest (%s): its files are used unchecked; write one with "
        "python -m boexplore.pipeline.release manifest %s %s",
        root,
        manifest_path(root),
        root,
        manifest_path(root),
    )


def check_file(path: str | Path) -> dict[str, str] | None:
    """Refuse a released trace file that does not match its release's manifest.

    Returns the file's manifest row, or None for a release without a manifest (a warning
    says it is used unchecked). Raises :class:`ReleaseIntegrityError` when the manifest
    itself is damaged, the file is not listed, missing or its sha256 differs.
    """
    path = Path(path)
    root = release_root_of(path)
    manifest = manifest_path(root)
    if not manifest.is_file():
        _warn_unchecked(str(root))
        return None
    raise_for(manifest_damage(root))
    row = read_manifest(manifest).get(_key(root, path))
    raise_for([d for d in [file_damage(path, row, manifest)] if d is not None])
    return row


def check_trace_matches_row(path: Path, trace: object, row: Mapping[str, str] | None) -> None:
    """The trace read from ``path`` holds the rows and seeds its manifest row lists."""
    if row is None:
        return
    seeds = " ".join(str(int(s)) for s in sorted(trace["seed"].unique()))  # type: ignore[index]
    rows = len(trace)  # type: ignore[arg-type]
    if str(rows) != str(row.get("rows")) or seeds != str(row.get("seeds")):
        manifest = manifest_path(release_root_of(path))
        raise_for(
            [
                Damage(
                    path,
                    f"release file {path} reads as {rows} rows, seeds {seeds}; its manifest "
                    f"{manifest} lists {row.get('rows')} rows, seeds {row.get('seeds')}.",
                    manifest,
                    _fixes_changed(path),
                )
            ]
        )


def check_job_release(roots: Iterable[str | Path], problem: str, method: str) -> None:
    """Refuse a job of (``problem``, ``method``) when a release it restores or extends from
    holds damage in that cell (or in its manifest). Called by the workflow's input functions
    of both ``restore_run`` and ``bo_run``, so a refused job cannot fall back to BO silently."""
    damages: list[Damage] = []
    for root in roots:
        root = Path(root)
        if not root.is_dir():
            continue
        if not manifest_path(root).is_file():
            _warn_unchecked(str(root))
            continue
        damages += audit_cell(root, problem, method)
    raise_for(damages, f"job {problem}/{method}: its data release is damaged")


def checked_source(roots: Iterable[str | Path], wildcards: Any, source: Any) -> Any:
    """``source(wildcards)`` (a workflow input function) after :func:`check_job_release` for
    the job's ``wildcards.problem`` / ``wildcards.method``: how ``restore_run`` and ``bo_run``
    ask for their released inputs."""
    check_job_release(roots, wildcards.problem, wildcards.method)
    return source(wildcards)


# --- whole releases, tables and figures (boexplore verify --integrity) -------------------------
@dataclass
class Audit:
    """What ``verify --integrity`` found in one place (a release root or a figures folder)."""

    where: str
    checked: int = 0
    unit: str = "files"
    damages: list[Damage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def audit_release(root: str | Path, check_seal: bool = True) -> Audit:
    """Every file of release ``root`` against its manifest (sha256, rows, seeds), the
    manifest against its hash (unless ``check_seal`` is off: sealing a manifest checks its
    rows only), every manifest row against a file."""
    root = Path(root)
    manifest = manifest_path(root)
    audit = Audit(str(root))
    if not manifest.is_file():
        if root.is_dir():
            audit.notes.append(f"no manifest ({manifest}): its files cannot be checked")
        else:
            audit.notes.append("absent (nothing released yet)")
        return audit
    if check_seal:
        audit.damages += manifest_damage(root)
        if audit.damages:
            return audit
    if not root.is_dir():
        audit.damages.append(
            Damage(
                root,
                f"release traces {root} are missing, but {manifest} lists "
                f"{len(read_manifest(manifest))} files.",
                manifest,
                (f"restore them from git: git checkout -- {root}",),
            )
        )
        return audit
    rows = read_manifest(manifest)
    present = {_key(root, p) for p in root.glob("*/*/*.parquet")}
    for key in sorted(set(rows) | present):
        audit.checked += 1
        damage = file_damage(_file_of(root, key), rows.get(key), manifest, deep=True)
        if damage is not None:
            audit.damages.append(damage)
    return audit


def audit_tables(tables: str | Path) -> Audit:
    """A release's tables folder: present, and how it is checked (tables have no manifest of
    their own; the figures drawn from them name their sha256, :func:`audit_figures`)."""
    tables = Path(tables)
    audit = Audit(str(tables))
    if not tables.is_dir():
        audit.notes.append("absent")
        return audit
    files = [p for p in tables.iterdir() if p.is_file()]
    audit.notes.append(
        f"{len(files)} tables; no manifest of their own, compared with the figures drawn from them"
    )
    return audit


def figure_inputs_stale(
    sidecar: Path, committed_tables: Mapping[str, Path]
) -> tuple[int, list[str]]:
    """(inputs compared, one line per input whose committed copy has another sha256) of one
    figure sidecar. An input ``results/<run>/tables/<name>`` is compared with
    ``committed_tables[<run>]/<name>`` when that file exists; an input path that is itself a
    file (e.g. committed under ``data/``) is compared with that file."""
    meta = json.loads(sidecar.read_text(encoding="utf-8"))
    compared, stale = 0, []
    for item in meta.get("inputs", []):
        if not isinstance(item, Mapping) or not item.get("sha256"):
            continue
        name = Path(str(item["path"]))
        committed = None
        parts = name.parts
        if len(parts) >= 4 and parts[0] == "results" and parts[2] == "tables":
            tables = committed_tables.get(parts[1], Path("data") / parts[1] / "tables")
            candidate = Path(tables).joinpath(*parts[3:])
            committed = candidate if candidate.is_file() else None
        elif parts and parts[0] != "results" and name.is_file():
            committed = name
        if committed is None:
            continue
        compared += 1
        found = sha256_file(committed)
        if found != item["sha256"]:
            stale.append(
                f"{item['path']} was sha256 {item['sha256']} when the figure was drawn; the "
                f"committed {committed} is {found}"
            )
    return compared, stale


def audit_figures(figures: str | Path, committed_tables: Mapping[str, Path]) -> Audit:
    """Every figure sidecar (``*.json``) under ``figures``: a figure drawn from a table whose
    committed copy has changed since is stale (reported by name)."""
    figures = Path(figures)
    audit = Audit(str(figures), unit="figures")
    if not figures.is_dir():
        audit.notes.append("absent")
        return audit
    inputs = 0
    for sidecar in sorted(figures.rglob("*.json")):
        audit.checked += 1
        try:
            compared, stale = figure_inputs_stale(sidecar, committed_tables)
        except (OSError, ValueError) as exc:
            audit.damages.append(
                Damage(sidecar, f"figure sidecar {sidecar} cannot be read ({exc})", sidecar)
            )
            continue
        inputs += compared
        if stale:
            figure = sidecar.with_suffix(".png")
            audit.damages.append(
                Damage(
                    figure,
                    f"figure {figure} is stale: " + "; ".join(stale) + ".",
                    sidecar,
                    (
                        f"re-make it from the committed tables (snakemake {figure} "
                        "--configfile <its config>) and commit the figure with its sidecar",
                    ),
                )
            )
    audit.notes.append(f"{inputs} of their inputs are committed tables, compared by sha256")
    return audit


def format_audits(audits: Sequence[Audit], seconds: float | None = None) -> str:
    """Report of ``verify --integrity``: one line per place, then every damage in full."""
    lines = []
    for a in audits:
        status = "OK" if not a.damages else f"{len(a.damages)} DAMAGED"
        count = f"{a.checked} {a.unit} checked, " if a.checked else ""
        notes = f" ({'; '.join(a.notes)})" if a.notes else ""
        lines.append(f"{a.where}: {count}{status}{notes}")
    damages = [d for a in audits for d in a.damages]
    for d in damages:
        lines.append("")
        lines.append(d.message())
    total = f"{len(damages)} damaged" if damages else "intact"
    took = f" in {seconds:.1f} s" if seconds is not None else ""
    lines.append(f"integrity: {total}{took}")
    return "\n".join(lines)


def drop_from_release(path: str | Path) -> Path:
    """Delete released file ``path`` and its manifest row, and re-hash the manifest; the
    workflow then re-makes the job with BO. Refuses when the manifest does not match its
    hash (re-hashing would accept the edit). Returns the manifest path."""
    from boexplore.io import atomic_write_text

    path = Path(path)
    root = release_root_of(path)
    manifest = manifest_path(root)
    if manifest.is_file():
        raise_for(manifest_damage(root))
        key = _key(root, path)
        text = manifest.read_text(encoding="utf-8")
        kept = []
        for line in text.splitlines(keepends=True):
            fields = next(csv.reader(io.StringIO(line)), [])
            if tuple(fields[:3]) != key:
                kept.append(line)
        atomic_write_text("".join(kept), manifest)
        write_seal(manifest)
    if path.exists():
        os.remove(path)
    return manifest
