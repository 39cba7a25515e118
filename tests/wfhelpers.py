"""Helpers for workflow tests: repo paths and a snakemake runner (importable via pythonpath=tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CONFIGS = ("smoke", "config", "paper")


def snakemake_cmd() -> list[str]:
    """The snakemake executable of the running interpreter's environment."""
    exe = Path(sys.executable).with_name("snakemake")
    return [str(exe)] if exe.exists() else [shutil.which("snakemake") or "snakemake"]


def run_snakemake(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run snakemake with the repo's Snakefile, returning the completed process."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [*snakemake_cmd(), "-s", str(REPO / "Snakefile"), *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def repo() -> Path:
    return REPO


def smoke_config() -> dict:
    """The shipped smoke config as written (a fresh dict per call; tests mutate it)."""
    import yaml

    return yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
