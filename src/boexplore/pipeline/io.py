"""Per-job logging shared by the pipeline stages (atomic writes live in :mod:`boexplore.io`)."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path


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
