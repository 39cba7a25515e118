"""Data release of a finished study: compact committed traces and their exact restoration.

A study's BO traces (``results/<run>/runs/<problem>/<method>/<chunk>.parquet``) are exported
as float32, zstd-compressed Parquet under ``data/<run>/traces/`` (same relative layout), which
keeps a 800-run study at a few MB. With ``release.traces`` set in the config, the workflow's
``restore_run`` rule turns each committed trace back into a float64 run file instead of running
BO, so every table and figure is re-derived from the committed data in minutes. A trace that
is missing from the release falls back to the ``bo_run`` rule.

``python -m boexplore.pipeline.release export results/replicate/runs data/replicate/traces``
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from boexplore.io import atomic_write

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


def export_traces(runs_dir: Path, out_dir: Path) -> list[Path]:
    """Write compact copies of every ``*.parquet`` under ``runs_dir`` into ``out_dir``.

    Incremental: a release file newer than its source is kept (its mtime, which Snakemake
    compares with the restored run files, does not change). Returns every release file.
    """
    runs_dir, out_dir = Path(runs_dir), Path(out_dir)
    written = []
    for src in sorted(runs_dir.rglob("*.parquet")):
        dst = out_dir / src.relative_to(runs_dir)
        written.append(dst)
        if dst.exists() and dst.stat().st_mtime >= src.stat().st_mtime:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(compact(pd.read_parquet(src)), dst, compression=COMPRESSION)
    if not written:
        raise FileNotFoundError(f"no trace files (*.parquet) under {runs_dir}")
    return written


def restore_trace(src: Path, dst: Path) -> Path:
    """Write the pipeline's float64 run file ``dst`` from a released trace ``src``."""
    trace = pd.read_parquet(src)
    if len(trace) == 0:
        raise ValueError(f"released trace {src} has no rows")
    return atomic_write(expand(trace), Path(dst))


def release_size_mb(out_dir: Path) -> float:
    """Total size in MB of the files under ``out_dir``."""
    return sum(p.stat().st_size for p in Path(out_dir).rglob("*") if p.is_file()) / 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Export a study's traces as a compact release.")
    sub = parser.add_subparsers(dest="command", required=True)
    exp = sub.add_parser("export", help="compact copies of results/<run>/runs")
    exp.add_argument("runs_dir", type=Path)
    exp.add_argument("out_dir", type=Path)
    args = parser.parse_args(argv)
    files = export_traces(args.runs_dir, args.out_dir)
    print(f"{len(files)} traces -> {args.out_dir} ({release_size_mb(args.out_dir):.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
