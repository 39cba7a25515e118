"""Data release of a finished study: compact committed traces and their exact restoration.

A study's BO traces (``results/<run>/runs/<problem>/<method>/<chunk>.parquet``) are exported
as float32, zstd-compressed Parquet under ``data/<run>/traces/`` (same relative layout), which
keeps a 800-run study at a few MB. With ``release.traces`` set in the config, the workflow's
``restore_run`` rule turns each committed trace back into a float64 run file instead of running
BO, so every table and figure is re-derived from the committed data in minutes. A trace that
is missing from the release falls back to the ``bo_run`` rule; a released trace shorter than
the configured budget is extended by ``bo_run`` (``bo/extend.py``), not re-run.

Every released file is checked against the release manifest (``manifest.csv`` beside
``traces/``, sealed by ``manifest.sha256``) before it is used; ``boexplore.pipeline.integrity``
says how, and what to do when a file is refused.

``python -m boexplore.pipeline.release export results/replicate/runs data/replicate/traces``
``python -m boexplore.pipeline.release manifest data/replicate/traces data/replicate/manifest.csv``
``python -m boexplore.pipeline.release drop data/replicate/traces/<problem>/<method>/<chunk>.parquet``
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from boexplore.io import atomic_write
from boexplore.pipeline.integrity import (
    ReleaseIntegrityError,
    check_file,
    check_trace_matches_row,
    drop_from_release,
    manifest_damage,
    manifest_path,
    read_manifest,
    write_seal,
)

# Every float column (points, values, timings) is a measurement that float32 holds to ~1e-7.
COMPRESSION = "zstd"


def compact(trace: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``trace`` with every float64 column stored as float32."""
    out = trace.copy()
    for col in out.columns:
        if out[col].dtype == np.float64:
            out[col] = out[col].astype(np.float32)
    return out


def expand(trace: pd.DataFrame) -> pd.DataFrame:
    """Copy of a released trace with float32 columns back in float64 (the pipeline's dtype).

    Rounding to float32 is monotone, so ``best_so_far`` stays the running maximum of ``y``.
    """
    out = trace.copy()
    for col in out.columns:
        if out[col].dtype == np.float32:
            out[col] = out[col].astype(np.float64)
    return out


def export_traces(runs_dir: Path, out_dir: Path, held_in: ReleaseRoots | None = None) -> list[Path]:
    """Write compact copies of every ``*.parquet`` under ``runs_dir`` into ``out_dir``.

    Incremental: a release file newer than its source, or holding the same trace, is kept
    (its mtime, which Snakemake compares with the restored run files, does not change).
    ``held_in``: releases the study restores from (``release.extend_from``); a run file whose
    every seed one of them holds at the same length was restored from it and is not copied.
    Returns every release file.
    """
    runs_dir, out_dir = Path(runs_dir), Path(out_dir)
    written = []
    sources = sorted(runs_dir.rglob("*.parquet"))
    for src in sources:
        dst = out_dir / src.relative_to(runs_dir)
        if not dst.exists() and _held_elsewhere(src, dst):
            continue  # restored from release files that group its seeds otherwise
        if not dst.exists() and held_in and _held_in_releases(src, runs_dir, held_in):
            continue  # restored from a release this study extends: held there already
        written.append(dst)
        if dst.exists() and dst.stat().st_mtime >= src.stat().st_mtime:
            continue
        trace = compact(pd.read_parquet(src))
        if dst.exists() and _same_trace(trace, pd.read_parquet(dst)):
            continue  # e.g. a run file restored from this release: rewriting it would make
            # the workflow restore (and rescore) it again
        dst.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(trace, dst, compression=COMPRESSION)
    if not sources:
        raise FileNotFoundError(f"no trace files (*.parquet) under {runs_dir}")
    for stale in superseded_files(written):
        drop_from_release(stale)  # its manifest row too, re-sealed
        print(f"removed superseded {stale}: its seeds are in this export's files beside it")
    return written


def superseded_files(written: Sequence[Path]) -> list[Path]:
    """Release files beside ``written`` (one export's files) whose every seed a written file
    of the same (problem, method) holds: chunks of an earlier export that grouped the seeds
    otherwise. Left in place they would hold those seeds twice."""
    out = []
    cells: dict[Path, set[Path]] = {}
    for path in written:
        cells.setdefault(Path(path).parent, set()).add(Path(path))
    for cell, files in sorted(cells.items()):
        held = {s for f in files for s in _fresh_seeds(f)}
        for other in sorted(cell.glob("*.parquet")):
            if other not in files and _fresh_seeds(other) <= held:
                out.append(other)
    return out


def _fresh_seeds(path: Path) -> set[int]:
    """Seeds of a trace file as it is now (an export may just have rewritten it)."""
    return {int(s) for s in pq.read_table(path, columns=["seed"]).column("seed").to_pylist()}


def _held_elsewhere(src: Path, dst: Path) -> bool:
    """Whether every seed of run file ``src`` is already in other release files next to
    ``dst`` (a job restored from a release grouped by seed): exporting it would hold each
    of those seeds twice."""
    others = [p for p in dst.parent.glob("*.parquet") if p != dst]
    if not others:
        return False
    held = {s for p in others for s in _seed_counts(p)}
    return set(_seed_counts(src)) <= held


def _held_in_releases(src: Path, runs_dir: Path, roots: ReleaseRoots) -> bool:
    """Whether other releases hold every seed of run file ``src`` at its length."""
    problem, method = src.relative_to(runs_dir).parts[:2]
    counts = _seed_counts(src)
    found = released_seeds(roots, problem, method)
    return all(s in found and found[s][1] == n for s, n in counts.items())


def _same_trace(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Same columns, dtypes, values (NaN equal to NaN) and attributes."""
    return a.attrs == b.attrs and a.dtypes.equals(b.dtypes) and a.equals(b)


def _read_checked(path: str | Path) -> pd.DataFrame:
    """A released trace file, after checking it against its release manifest (a damaged,
    unlisted or missing file raises ``ReleaseIntegrityError`` before anything is read)."""
    row = check_file(path)
    trace = pd.read_parquet(path)
    check_trace_matches_row(Path(path), trace, row)
    return trace


def read_released(files: Sequence[str | Path]) -> pd.DataFrame:
    """Released trace files read as the pipeline reads them (float64), one frame: the prefix a
    run extends, in the workflow and in ``boexplore verify`` alike. Each file is checked
    against its release manifest first."""
    return pd.concat([expand(_read_checked(f)) for f in files], ignore_index=True)


def restore_trace(src: Path, dst: Path) -> Path:
    """Write the pipeline's float64 run file ``dst`` from a released trace ``src``, after
    checking ``src`` against its release manifest (nothing is written when it does not match)."""
    trace = _read_checked(src)
    if len(trace) == 0:
        raise ValueError(f"released trace {src} has no rows")
    return atomic_write(expand(trace), Path(dst))


def _without_machine(ident: dict) -> dict:
    """An identity without what only says where it ran: the commit, the released prefix files
    and the CPU model (``numerics.cpu``). Two traces of one run made on two CPUs under one
    profile are the same computation; which CPU made which stays recorded."""
    free = ("extended_from", "git_commit")
    out = {k: v for k, v in ident.items() if k not in free}
    if isinstance(out.get("numerics"), dict):
        out["numerics"] = {k: v for k, v in out["numerics"].items() if k != "cpu"}
    return out


def merged_identity(frames: Sequence[pd.DataFrame]) -> dict:
    """Attributes of traces joined into one file: the first's, with the union of the released
    prefixes they extend (``extended_from.files``) and, when they differ, the commits they were
    made at (``git_commits``) and the CPUs that made them (``numerics.cpus``); every other field
    (engine, numerics profile and variables) must agree."""
    attrs = [f.attrs for f in frames]
    out = {k: v for k, v in attrs[0].items()} if attrs else {}
    ids = [a.get("boexplore", {}) for a in attrs]
    if not ids or not ids[0]:
        return out
    files: dict[str, str] = {}
    for ident in ids:
        files.update((ident.get("extended_from") or {}).get("files", {}))
    base = _without_machine(ids[0])
    for ident in ids[1:]:
        if _without_machine(ident) != base:
            raise ValueError("released traces of one job disagree on their identity")
    merged = dict(ids[0])
    commits = sorted({str(i["git_commit"]) for i in ids if i.get("git_commit")})
    if len(commits) > 1:
        merged["git_commits"] = commits
    cpus = sorted({str(i["numerics"]["cpu"]) for i in ids if (i.get("numerics") or {}).get("cpu")})
    if len(cpus) > 1:
        merged["numerics"] = {**merged["numerics"], "cpus": cpus}
    if files:
        merged["extended_from"] = {**ids[0]["extended_from"], "files": dict(sorted(files.items()))}
    out["boexplore"] = merged
    return out


def restore_seeds(srcs: Sequence[Path], seeds: Sequence[int], dst: Path) -> Path:
    """Write the run file ``dst`` of a job over ``seeds`` from released traces that group the
    seeds differently (e.g. per-seed files for a four-seed job): the seeds' rows in seed
    order, float64, their identities merged. Refuses a seed missing from ``srcs`` and a file
    that does not match its release manifest (before anything is written)."""
    frames = [_read_checked(p) for p in srcs]
    parts = []
    for seed in sorted(int(s) for s in seeds):
        rows = [f[f["seed"] == seed] for f in frames if (f["seed"] == seed).any()]
        if not rows:
            raise ValueError(f"no released trace of seed {seed} in {[str(p) for p in srcs]}")
        parts.append(rows[0])
    trace = pd.concat(parts, ignore_index=True)
    trace.attrs = merged_identity(frames)
    return atomic_write(expand(trace), Path(dst))


@functools.cache
def _seed_counts(path: Path) -> dict[int, int]:
    """{seed: evaluations} of one trace file, from its ``seed`` column only (cheap enough for
    the workflow to ask for every job of a study while it builds the job graph)."""
    try:
        seeds = pq.read_table(path, columns=["seed"]).column("seed").to_numpy()
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise ReleaseIntegrityError(
            f"release file {path} cannot be read ({str(exc).strip()[:200]}); check the "
            "release with boexplore verify --integrity --configfile <config>"
        ) from exc
    values, counts = np.unique(seeds, return_counts=True)
    return {int(s): int(c) for s, c in zip(values.tolist(), counts.tolist(), strict=True)}


def file_seed_counts(path: str | Path) -> dict[int, int]:
    """{seed: evaluations} of one released trace file (read once per process)."""
    return dict(_seed_counts(Path(path)))


def released_evaluations(path: str | Path) -> int | None:
    """Evaluations per seed of a released trace file (its shortest seed); None if absent."""
    path = Path(path)
    if not path.is_file():
        return None
    return min(_seed_counts(path).values(), default=0)


ReleaseRoots = str | Path | Sequence[str | Path]


def release_roots(roots: ReleaseRoots | None) -> tuple[Path, ...]:
    """One release root or several (``release.extend_from`` may name a list), as paths."""
    if roots is None:
        return ()
    if isinstance(roots, (str, Path)):
        return (Path(roots),)
    return tuple(Path(r) for r in roots)


def restore_roots(release: Mapping[str, Any]) -> tuple[Path, ...]:
    """Where a job of a study with config key ``release`` restores its full-budget traces
    from: the study's own release first, then the releases it extends (``extend_from``)."""
    own = release_roots(release.get("traces"))
    return own + tuple(r for r in release_roots(release.get("extend_from")) if r not in own)


@functools.cache
def _released_seeds_in(root: Path, problem: str, method: str) -> dict[int, tuple[Path, int]]:
    return {
        seed: (path, count)
        for path in sorted((root / problem / method).glob("*.parquet"))
        for seed, count in _seed_counts(path).items()
    }


def released_seeds(roots: ReleaseRoots, problem: str, method: str) -> dict[int, tuple[Path, int]]:
    """{seed: (file, evaluations)} of every released trace of (problem, method) under ``roots``.

    Chunk files may group seeds differently from the study that extends them, so a job
    finds its seeds' traces by seed, not by file name. With several roots (a longer tier
    first, the tier it extends next) a seed's trace is taken from the first root holding it.
    """
    found: dict[int, tuple[Path, int]] = {}
    for root in release_roots(roots):
        for seed, entry in _released_seeds_in(root, problem, method).items():
            found.setdefault(seed, entry)
    return found


def complete_seed_files(
    roots: ReleaseRoots, problem: str, method: str, seeds: Sequence[int], budget: int
) -> list[Path] | None:
    """Released files that hold every one of ``seeds`` at the full ``budget`` (however they
    group them), or None when a seed is missing or shorter: a job over ``seeds`` restores
    from these instead of running BO."""
    found = released_seeds(roots, problem, method)
    if not seeds or not all(s in found and found[s][1] >= budget for s in seeds):
        return None
    return sorted({found[s][0] for s in seeds})


def restore_files(
    release: Mapping[str, Any],
    problem: str,
    method: str,
    chunk: str,
    seeds: Sequence[int],
    budget: int,
) -> list[Path] | None:
    """Released files the ``restore_run`` job (problem, method, chunk) of a study with config
    key ``release`` reads, or None when the job is not restored (``bo_run`` makes it).

    The study's own file of the chunk when it exists (None when it is shorter than ``budget``:
    ``bo_run`` extends it); otherwise the files holding every seed at the full budget in the
    study's release or one it extends (:func:`complete_seed_files`). The workflow's
    ``restore_run``, ``boexplore restore`` and ``verify --integrity`` all ask this function.
    """
    own = Path(release["traces"]) / problem / method / f"{chunk}.parquet"
    held = released_evaluations(own)
    if held is not None:
        return [own] if held >= int(budget) else None
    return complete_seed_files(restore_roots(release), problem, method, seeds, int(budget))


def extend_files(
    release: Mapping[str, Any], problem: str, method: str, seeds: Sequence[int], budget: int
) -> list[Path]:
    """Released prefixes the ``bo_run`` job over ``seeds`` continues ([] when none or when
    ``release.extend`` is off): from ``release.extend_from``, else the study's own release."""
    prefixes = release.get("extend_from") or release.get("traces")
    if not (release.get("extend", True) and prefixes):
        return []
    return prefix_files(prefixes, problem, method, seeds, int(budget))


def prefix_files(
    roots: ReleaseRoots, problem: str, method: str, seeds: Sequence[int], budget: int
) -> list[Path]:
    """Released trace files to extend for these seeds: those holding at most ``budget``
    evaluations of one of them (a seed with no released trace starts afresh; one held at the
    full budget is continued by zero iterations, i.e. kept as it is)."""
    found = released_seeds(roots, problem, method)
    return sorted({found[s][0] for s in seeds if s in found and found[s][1] <= budget})


def release_size_mb(out_dir: Path) -> float:
    """Total size in MB of the files under ``out_dir``."""
    return sum(p.stat().st_size for p in Path(out_dir).rglob("*") if p.is_file()) / 1e6


def _added_in(paths_root: Path) -> dict[str, str]:
    """Commit that first added each file under ``paths_root`` (one ``git log`` call)."""
    import subprocess

    done = subprocess.run(
        ["git", "log", "--diff-filter=A", "--format=>%H", "--name-only", "--", str(paths_root)],
        capture_output=True,
        text=True,
        check=False,
    )
    added: dict[str, str] = {}
    commit = ""
    for line in done.stdout.splitlines():
        if line.startswith(">"):
            commit = line[1:]
        elif line.strip():
            added[line.strip()] = commit  # git log is newest first: the last one is the oldest
    return added


def trace_manifest(
    traces_dir: Path,
    verify_table: pd.DataFrame | None = None,
    previous: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per released trace file: what it holds, what made it, whether it re-runs.

    ``profile`` / ``made_at_commit`` come from the identity a run stamps on its trace
    (``boexplore.bo.engine.stamp_trace``); traces made before that was recorded say
    ``unrecorded`` and give the commit that added them to git instead. With a
    ``boexplore verify`` table, ``reproduced`` says, per checked trace file, whether every
    seed re-ran to the same float32 values (else the first divergent BO iteration).
    ``previous`` (the manifest this one replaces) keeps the outcome of earlier checks for
    every trace file whose sha256 is unchanged and that this verify table does not cover.
    """
    from boexplore.io import sha256_file

    traces_dir = Path(traces_dir)
    added = _added_in(traces_dir)
    checked: dict[tuple[str, str, str], str] = {}
    if verify_table is not None and len(verify_table):
        for (prob, meth, chunk), part in verify_table.groupby(["problem", "method", "chunk"]):
            div = part["first_divergent_iteration"].dropna()
            checked[(prob, meth, chunk)] = (
                "identical" if div.empty else f"diverges at iteration {int(div.min())}"
            )
    earlier: dict[tuple[str, str, str, str], str] = {}
    if previous is not None and len(previous):
        for row in previous.itertuples(index=False):
            if row.reproduced != "not checked":
                earlier[(row.problem, row.method, row.chunk, row.sha256)] = row.reproduced
    rows = []
    for path in sorted(traces_dir.glob("*/*/*.parquet")):
        trace = pd.read_parquet(path)
        ident = trace.attrs.get("boexplore") or {}
        key = (path.parent.parent.name, path.parent.name, path.stem)
        rel = path.as_posix()
        sha = sha256_file(path)
        rows.append(
            {
                "problem": key[0],
                "method": key[1],
                "chunk": key[2],
                "rows": len(trace),
                "seeds": " ".join(str(s) for s in sorted(trace["seed"].unique())),
                "sha256": sha,
                "profile": (ident.get("numerics") or {}).get("profile", "unrecorded"),
                "made_at_commit": ident.get("git_commit") or "unrecorded",
                "engine_version": (ident.get("engine") or {}).get("engine_version", "unrecorded"),
                "added_in_commit": added.get(rel, ""),
                "reproduced": checked.get(key) or earlier.get((*key, sha), "not checked"),
            }
        )
    return pd.DataFrame(rows)


def write_manifest(
    traces_dir: Path,
    out: Path,
    verify_table: pd.DataFrame | None = None,
    accept_changed: bool = False,
) -> pd.DataFrame:
    """Write the manifest of release ``traces_dir`` to ``out`` and seal it (``manifest.sha256``).

    A file listed in the manifest being replaced with another sha256 is refused unless
    ``accept_changed``: rebuilding the manifest would otherwise accept a damaged trace as
    the release. New files (exported since) and removed rows are listed, not refused.
    """
    previous = pd.read_csv(out, dtype=str, keep_default_na=False) if out.exists() else None
    manifest = trace_manifest(traces_dir, verify_table, previous)
    if previous is not None and len(previous):
        old = {
            tuple(r[:3]): r[3] for r in previous[["problem", "method", "chunk", "sha256"]].values
        }
        new = {
            tuple(r[:3]): r[3] for r in manifest[["problem", "method", "chunk", "sha256"]].values
        }
        changed = sorted("/".join(k) for k in old.keys() & new.keys() if old[k] != new[k])
        added = sorted("/".join(k) for k in new.keys() - old.keys())
        removed = sorted("/".join(k) for k in old.keys() - new.keys())
        for label, keys in (("new", added), ("no longer present", removed), ("changed", changed)):
            if keys:
                print(
                    f"{len(keys)} {label}: {', '.join(keys[:10])}{' ...' if len(keys) > 10 else ''}"
                )
        if changed and not accept_changed:
            raise ReleaseIntegrityError(
                f"{len(changed)} released files differ from their rows in {out} (e.g. "
                f"{traces_dir}/{changed[0]}.parquet); the manifest is not rewritten. Restore "
                "them from git (git checkout -- <file>), or pass --accept-changed if you "
                "re-made them on purpose"
            )
    atomic_write(manifest, out)
    write_seal(out)
    return manifest


def seal_manifest(manifest: Path, traces_dir: Path | None = None) -> Path:
    """Seal an existing manifest as it is (``manifest.sha256``), after checking every row
    against its file and every file against a row (``traces_dir``, default ``traces/``
    beside the manifest); the trace files are not touched."""
    from boexplore.pipeline.integrity import audit_release, raise_for

    audit = audit_release(traces_dir or manifest.parent / "traces", check_seal=False)
    raise_for(audit.damages)
    return write_seal(manifest)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Export a study's traces as a compact release.")
    sub = parser.add_subparsers(dest="command", required=True)
    exp = sub.add_parser("export", help="compact copies of results/<run>/runs")
    exp.add_argument("runs_dir", type=Path)
    exp.add_argument("out_dir", type=Path)
    exp.add_argument(
        "--held-in",
        type=Path,
        nargs="+",
        default=None,
        help="releases the study restores from (release.extend_from): run files they hold "
        "at the same length are not copied",
    )
    man = sub.add_parser("manifest", help="per-trace identity table of a release, sealed")
    man.add_argument("traces_dir", type=Path)
    man.add_argument(
        "out",
        type=Path,
        help="manifest CSV, e.g. data/replicate/manifest.csv (earlier check outcomes of unchanged "
        "traces are kept; its hash goes to manifest.sha256 beside it)",
    )
    man.add_argument("--verify", type=Path, help="a `boexplore verify --out` table to merge")
    man.add_argument(
        "--accept-changed",
        action="store_true",
        help="accept files whose sha256 differs from their manifest row (re-made on purpose)",
    )
    seal = sub.add_parser(
        "seal", help="write manifest.sha256 for a manifest whose rows all match their files"
    )
    seal.add_argument("manifest", type=Path, help="e.g. data/replicate/manifest.csv")
    seal.add_argument("--traces", type=Path, help="the release's traces (default: traces/ beside)")
    drop = sub.add_parser(
        "drop",
        help="delete released files and their manifest rows (the workflow then re-makes "
        "those jobs with BO)",
    )
    drop.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    try:
        return _main(args)
    except ReleaseIntegrityError as exc:
        print(f"release {args.command}: {exc}")
        return 1


def _main(args: argparse.Namespace) -> int:
    if args.command == "manifest":
        table = pd.read_csv(args.verify) if args.verify else None
        manifest = write_manifest(args.traces_dir, args.out, table, args.accept_changed)
        counts = manifest["reproduced"].str.split(" ").str[0].value_counts().to_dict()
        print(f"{len(manifest)} traces -> {args.out} (sealed); reproduced: {counts}")
        return 0
    if args.command == "seal":
        print(f"sealed {args.manifest} -> {seal_manifest(args.manifest, args.traces)}")
        return 0
    if args.command == "drop":
        for path in args.files:
            manifest = drop_from_release(path)
            print(f"dropped {path} (and its row in {manifest}); a job that restored it now runs BO")
        return 0
    files = export_traces(args.runs_dir, args.out_dir, args.held_in)
    print(f"{len(files)} traces -> {args.out_dir} ({release_size_mb(args.out_dir):.1f} MB)")
    manifest = manifest_path(args.out_dir)
    if manifest.is_file():
        from boexplore.io import sha256_file

        listed = read_manifest(manifest) if not manifest_damage(args.out_dir) else {}
        keys = {f: (f.parent.parent.name, f.parent.name, f.stem) for f in files}
        new = [f for f in files if keys[f] not in listed]
        changed = [
            f for f in files if keys[f] in listed and sha256_file(f) != listed[keys[f]]["sha256"]
        ]
        if new or changed:
            flag = " --accept-changed" if changed else ""
            print(
                f"{len(new)} new and {len(changed)} changed files are not in {manifest} yet: "
                "the workflow refuses them until you run python -m boexplore.pipeline.release "
                f"manifest {args.out_dir} {manifest}{flag}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
