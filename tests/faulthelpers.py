"""Helpers of the fault-injection suite (tests/faults; importable via pythonpath=tests)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd

#: Tiny optimiser settings: the suite runs in a few minutes on 2 cores.
FAST = {"num_restarts": 2, "raw_samples": 32, "mc_samples": 16, "acq_maxiter": 20}
#: Wall-time columns: the only ones allowed to differ between a resumed and a clean run.
TIMING = ["fit_seconds", "acq_seconds"]


class Kill(RuntimeError):
    """Raised by a callback to stop a run after a given iteration (in-process 'kill')."""


def kill_at(iteration: int):
    """Callback stopping ``run_bo`` right after iteration ``iteration`` was checkpointed."""

    def callback(it: int, trace: pd.DataFrame) -> None:
        if it == iteration:
            raise Kill

    return callback


def same_trace(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal traces up to wall-time columns (bitwise for x, y and everything else)."""
    pd.testing.assert_frame_equal(
        a.drop(columns=TIMING).reset_index(drop=True), b.drop(columns=TIMING).reset_index(drop=True)
    )


def boexplore_cmd() -> list[str]:
    """The ``boexplore`` CLI of the running interpreter."""
    return [sys.executable, "-m", "boexplore.cli"]


def cli_env() -> dict[str, str]:
    return dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONWARNINGS="ignore")


def spawn(args: list[str], **kw) -> subprocess.Popen:
    """Start ``boexplore <args>`` in its own session (so kill -9 can hit the whole group)."""
    return subprocess.Popen(
        [*boexplore_cmd(), *args],
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **kw,
    )


def rng_for(name: str) -> np.random.Generator:
    """Random kill points, reproducible per test (override with FAULTS_SEED=...)."""
    return np.random.default_rng(
        [int(os.environ.get("FAULTS_SEED", "23")), len(name), *name.encode()]
    )
