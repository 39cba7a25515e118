"""Layout of a data release: each seed's trace in one file, each file read by a job.

A release (``data/<tier>/traces``) may extend others (config ``release.extend_from``). Its
layout is sound when

- each (problem, method, seed) lives in exactly one file of the release, and a release does
  not hold again, at the same length, a seed a release it extends holds (a longer trace of the
  same seed is an extension, not a copy);
- every file of the release is read by a job of its config: the ``restore_run`` job that
  restores it, or the ``bo_run`` job that continues it (``release.restore_files`` /
  ``extend_files``, the functions the workflow asks).

A seed held twice is read once by the pipeline and twice by anyone loading the release's
files, so a user's counts would silently differ from the tables; a file no job reads is a
superseded chunk (an earlier export grouped the seeds otherwise). ``boexplore verify
--integrity`` reports both as damage (:func:`audit_layout`), naming every file involved.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boexplore.pipeline.integrity import Audit, Damage, manifest_path
from boexplore.pipeline.release import (
    extend_files,
    file_seed_counts,
    release_roots,
    restore_files,
)
from boexplore.workflow_config import is_excluded, run_table

#: (problem, method, seed) of one seed's trace.
SeedKey = tuple[str, str, int]


@dataclass(frozen=True)
class Holding:
    """One file of a release holding one seed's trace, with its number of evaluations."""

    file: Path
    evaluations: int


def held_seeds(root: str | Path) -> dict[SeedKey, list[Holding]]:
    """Every (problem, method, seed) of release ``root`` with the files holding it."""
    out: dict[SeedKey, list[Holding]] = defaultdict(list)
    for path in sorted(Path(root).glob("*/*/*.parquet")):
        problem, method = path.parent.parent.name, path.parent.name
        for seed, n in file_seed_counts(path).items():
            out[(problem, method, seed)].append(Holding(path, n))
    return dict(out)


def job_reads(
    config: Mapping[str, Any], rows: Sequence[Mapping[str, Any]] | None = None
) -> dict[Path, list[str]]:
    """{released file: jobs (``problem/method/chunk``) of ``config`` that read it}: a job the
    release holds complete reads what ``restore_run`` restores, any other job the prefixes
    ``bo_run`` continues."""
    release = config.get("release") or {}
    reads: dict[Path, list[str]] = defaultdict(list)
    if not release.get("traces"):
        return {}
    for row in run_table(config) if rows is None else rows:
        args = (row["problem"], row["method"])
        files = restore_files(release, *args, row["chunk"], row["seeds"], row["budget"])
        if files is None:
            files = extend_files(release, *args, row["seeds"], row["budget"])
        for f in files:
            reads[Path(f)].append(f"{row['problem']}/{row['method']}/{row['chunk']}")
    return dict(reads)


def _seeds_text(seeds: Iterable[int]) -> str:
    seeds = sorted(seeds)
    return f"seed{'s' if len(seeds) > 1 else ''} {' '.join(map(str, seeds))}"


def _read_by(file: Path, reads: Mapping[Path, list[str]] | None) -> str:
    if reads is None:
        return ""
    jobs = reads.get(file, [])
    return (
        f"read by {', '.join(jobs[:3])}{' ...' if len(jobs) > 3 else ''}"
        if jobs
        else "read by no job"
    )


def _drop(file: Path) -> str:
    return f"python -m boexplore.pipeline.release drop {file}"


def _duplicate(
    own_root: Path,
    files: Sequence[Holding],
    seeds: Sequence[int],
    reads: Mapping[Path, list[str]] | None,
) -> Damage:
    """One damage naming every file that holds ``seeds`` of one (problem, method): files of
    the release ``own_root`` first, then those of releases it extends."""
    described = "; ".join(
        f"{h.file} ({h.evaluations} evaluations{', ' + _read_by(h.file, reads) if reads else ''})"
        for h in files
    )
    own = [h.file for h in files if h.file.is_relative_to(own_root)]
    unread = [f for f in own if reads is not None and not reads.get(f)]
    read = [h.file for h in files if reads and reads.get(h.file)]
    if unread:
        fixes = tuple(f"drop the copy no job reads: {_drop(f)}" for f in unread)
    elif len(own) < len(files):
        fixes = tuple(
            f"drop this release's copy (a release it extends holds the same seeds at the same "
            f"length; `release export --held-in` skips such a file): {_drop(f)}"
            for f in own
        )
    else:
        fixes = (f"keep one file per seed: drop the other copies ({_drop(own[-1])})",)
    cell = f"{files[0].file.parent.parent.name}/{files[0].file.parent.name}"
    return Damage(
        (unread or own)[-1],
        f"{cell}: {_seeds_text(seeds)} held in {len(files)} release files: {described}. "
        "Anyone loading the release's files counts these seeds twice"
        + (f"; the pipeline reads {', '.join(map(str, read))}" if read else "")
        + ".",
        manifest_path(own_root),
        fixes,
    )


def duplicate_damage(
    roots: Sequence[str | Path], reads: Mapping[Path, list[str]] | None = None
) -> list[Damage]:
    """Seeds held twice: in two files of the first release of ``roots``, or by it and a later
    root (a release it extends) at the same length. Each damage names every file of the
    duplicate (with ``reads``: and the jobs reading each)."""
    paths = [Path(r) for r in roots]
    if not paths or not paths[0].is_dir():
        return []
    own = held_seeds(paths[0])
    others = [held_seeds(r) for r in paths[1:] if r.is_dir()]
    groups: dict[tuple[Holding, ...], list[int]] = defaultdict(list)
    for key, holdings in own.items():
        same = list(holdings)
        for other in others:
            same += [
                h for h in other.get(key, []) if h.evaluations in {x.evaluations for x in holdings}
            ]
        if len(same) > 1:
            groups[tuple(same)].append(key[2])
    return [
        _duplicate(paths[0], files, seeds, reads)
        for files, seeds in sorted(groups.items(), key=lambda g: str(g[0][0].file))
    ]


def excluded_cell(config: Mapping[str, Any], problem: str, method: str) -> bool:
    """Whether ``config`` runs (problem, method) no more: both are configured and an
    ``exclude`` rule leaves the cell out whole (a tier cut stated in its config)."""
    if problem not in config["problems"] or method not in config["methods"]:
        return False
    return is_excluded(config, problem, method)


def orphan_damage(
    root: str | Path,
    reads: Mapping[Path, list[str]],
    config: Mapping[str, Any],
    config_name: str,
) -> tuple[list[Damage], list[Path]]:
    """(damage, kept) of the files of release ``root`` that no job of ``config`` reads
    (``reads``: :func:`job_reads`). A file of a cell an ``exclude`` rule of the config leaves
    out whole is kept (the config states why its traces are not analysed); any other unread
    file is damage: a superseded chunk, or a cell the config no longer names."""
    root = Path(root)
    out, kept = [], []
    for path in sorted(root.glob("*/*/*.parquet")):
        if reads.get(path):
            continue
        cell = path.parent
        if excluded_cell(config, cell.parent.name, cell.name):
            kept.append(path)
            continue
        siblings = sorted({p.name for p in reads if p.parent == cell})
        seeds = _seeds_text(file_seed_counts(path))
        out.append(
            Damage(
                path,
                f"release file {path} ({seeds}) is read by no job of {config_name}"
                + (
                    f" (the jobs of {cell.parent.name}/{cell.name} read {', '.join(siblings)})"
                    if siblings
                    else ""
                )
                + ": a superseded chunk or a cell the config no longer names.",
                manifest_path(root),
                (
                    f"drop it from the release: {_drop(path)} (deletes the file and its "
                    "manifest row, re-seals the manifest)",
                ),
            )
        )
    return out, kept


def audit_layout(config: Mapping[str, Any], config_name: str) -> Audit:
    """Layout of the release of ``config`` (``release.traces``) within the releases it
    extends: seeds held twice and files no job of ``config`` reads."""
    release = config.get("release") or {}
    own = Path(release["traces"]) if release.get("traces") else None
    audit = Audit(f"{own} layout (jobs of {config_name})", unit="files")
    if own is None or not own.is_dir():
        audit.notes.append("absent")
        return audit
    rows = run_table(config)
    reads = job_reads(config, rows)
    extended = [r for r in release_roots(release.get("extend_from")) if r != own]
    audit.checked = len(list(own.glob("*/*/*.parquet")))
    audit.damages += duplicate_damage([own, *extended], reads)
    orphans, kept = orphan_damage(own, reads, config, config_name)
    audit.damages += orphans
    across = f" across {', '.join(map(str, extended))}" if extended else ""
    audit.notes.append(
        f"each seed in one file{across}; every file read by one of its {len(rows)} jobs"
    )
    if kept:
        audit.notes.append(
            f"{len(kept)} files of cells its exclude rules leave out whole, not read: "
            + ", ".join(str(p.relative_to(own)) for p in kept)
        )
    return audit


def configs_by_release(config_dir: str | Path = "config") -> dict[Path, Path]:
    """{release root: config file naming it as ``release.traces``} of ``config_dir/*.yaml``
    (read with libyaml where installed: only ``release.traces`` is looked at here; the config
    found is then loaded with every check)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: dict[Path, Path] = {}
    for path in sorted(Path(config_dir).glob("*.yaml")):
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}  # noqa: S506
        except yaml.YAMLError:
            continue
        release = (data.get("release") or {}) if isinstance(data, dict) else {}
        traces = release.get("traces") if isinstance(release, dict) else None
        if traces:
            out.setdefault(Path(traces), path)
    return out
