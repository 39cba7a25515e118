"""kill -9 of `boexplore run` at random iterations (and random moments inside them): the resumed
run ends with exactly the trace of an uninterrupted run, for a sequential, a batch and a
trust-region method."""

from __future__ import annotations

import json
import os
import signal
import time

import pandas as pd
import pytest
from faulthelpers import FAST, rng_for, same_trace, spawn

from boexplore.bo import run_bo
from boexplore.bo.checkpoint import checkpoint_iteration
from boexplore.cli import main
from boexplore.problems import get_problem

pytestmark = pytest.mark.faults

BUDGET, N_INIT = 22, 4
METHODS = ["logei", "ucb(beta=4)+q2", "ts(candidates=256)+q2+tr"]


def _kill_when(proc, ckpt, iteration: int, delay: float, timeout: float = 240) -> int:
    """SIGKILL ``proc``'s session once ``ckpt`` holds ``iteration`` (+ ``delay`` s); its last iteration."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        it = checkpoint_iteration(ckpt)
        if it is not None and it >= iteration:
            time.sleep(delay)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return it
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    raise AssertionError(f"run ended or stalled before iteration {iteration}: {proc.stderr.read()}")


@pytest.mark.parametrize("spec", METHODS)
def test_kill9_at_random_points_gives_the_uninterrupted_trace(spec, tmp_path) -> None:
    rng = rng_for(spec)
    out, ckpt = tmp_path / "t.parquet", tmp_path / "t.ckpt"
    args = ["run", "--problem", "branin", "--dim", "2", "--method", spec, "--seed", "11",
            "--budget", str(BUDGET), "--n-init", str(N_INIT), "--out", str(out),
            "--checkpoint", str(ckpt), "--quiet", "--settings", json.dumps(FAST),
            "--numerics", "unpinned"]  # fmt: skip
    first, second = sorted(int(k) for k in rng.choice(range(1, 6), size=2, replace=False))
    for k in (first, second):  # two kills, each at a random moment after iteration k
        proc = spawn(args)
        _kill_when(proc, ckpt, k, delay=float(rng.uniform(0, 0.15)))
        assert proc.returncode == -signal.SIGKILL and not out.exists()
    assert main(args) == 0
    clean = run_bo(get_problem("branin", 2), spec, seed=11, budget=BUDGET, n_init=N_INIT, **FAST)
    same_trace(pd.read_parquet(out), clean)
    assert not ckpt.exists()
