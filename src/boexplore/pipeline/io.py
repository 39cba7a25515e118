"""Atomic writes and per-job logging shared by the pipeline stages."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pandas as pd


def atomic_write_parquet(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``df`` to ``path`` via a temp file + rename so readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, path)


def atomic_write_text(text: str, path: str | os.PathLike) -> None:
    """Write text atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def atomic_write_csv(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write a CSV atomically."""
    atomic_write_text(df.to_csv(index=False), path)


def setup_job_logging(log_path: str | os.PathLike | None) -> logging.Logger:
    """Send this job's log records (and warnings, stderr) to its Snakemake log file."""
    logger = logging.getLogger("boexplore")
    logger.setLevel(logging.INFO)
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handle = open(log_path, "w", buffering=1)  # noqa: SIM115 - lives for the job
        sys.stderr = handle
        handler: logging.Handler = logging.StreamHandler(handle)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().handlers[:] = [handler]
    logging.getLogger().setLevel(logging.INFO)
    logging.captureWarnings(True)
    return logger
