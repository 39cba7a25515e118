"""Issue 23 case 2: a corrupt checkpoint is named, moved aside and the run still ends right."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest
from faulthelpers import FAST, Kill, kill_at, same_trace

from boexplore.bo import run_bo
from boexplore.bo.checkpoint import prev_path
from boexplore.problems import get_problem, save_instance

pytestmark = pytest.mark.faults

SPEC, SEED, BUDGET, N_INIT = "logei", 7, 10, 4


def _truncated(raw: bytes) -> bytes:
    return raw[: len(raw) // 2]


def _random(raw: bytes) -> bytes:
    return np.random.default_rng(0).bytes(len(raw))


def _empty(raw: bytes) -> bytes:
    return b""


def _zeros(raw: bytes) -> bytes:
    return bytes(len(raw))


def _bitflip(raw: bytes) -> bytes:
    """One flipped bit in the middle of the X array: still a valid zip/npy, wrong numbers."""
    out = bytearray(raw)
    out[len(raw) // 3] ^= 0x10
    return bytes(out)


CORRUPTIONS = [_truncated, _random, _empty, _zeros, _bitflip]


@pytest.fixture(scope="module")
def clean() -> pd.DataFrame:
    return run_bo(get_problem("branin", 2), SPEC, seed=SEED, budget=BUDGET, n_init=N_INIT, **FAST)


def _interrupted(ckpt, at: int = 3) -> None:
    with pytest.raises(Kill):
        run_bo(get_problem("branin", 2), SPEC, seed=SEED, budget=BUDGET, n_init=N_INIT,
               checkpoint=ckpt, callback=kill_at(at), **FAST)  # fmt: skip


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__.strip("_"))
def test_corrupt_latest_falls_back_to_previous(corrupt, tmp_path, clean, caplog) -> None:
    ckpt = tmp_path / "run.ckpt"
    _interrupted(ckpt)
    ckpt.write_bytes(corrupt(ckpt.read_bytes()))
    seen: list[int] = []
    with caplog.at_level(logging.WARNING, logger="boexplore.bo"):
        trace = run_bo(get_problem("branin", 2), SPEC, seed=SEED, budget=BUDGET, n_init=N_INIT,
                       checkpoint=ckpt, callback=lambda it, tr: seen.append(it), **FAST)  # fmt: skip
    same_trace(trace, clean)
    assert seen[0] == 3, "resumed from the previous good checkpoint (iteration 2)"
    assert (tmp_path / "run.ckpt.corrupt").exists()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and str(ckpt) in lines[0], lines


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__.strip("_"))
def test_corrupt_without_previous_restarts_from_scratch(corrupt, tmp_path, clean) -> None:
    ckpt = tmp_path / "run.ckpt"
    _interrupted(ckpt)
    prev_path(ckpt).unlink(missing_ok=True)
    ckpt.write_bytes(corrupt(ckpt.read_bytes()))
    for _ in range(2):  # the retry does not meet the bad file again
        trace = run_bo(get_problem("branin", 2), SPEC, seed=SEED, budget=BUDGET, n_init=N_INIT,
                       checkpoint=ckpt, **FAST)  # fmt: skip
        same_trace(trace, clean)
    assert (tmp_path / "run.ckpt.corrupt").exists()


def test_both_corrupt_restart_from_scratch(tmp_path, clean) -> None:
    ckpt = tmp_path / "run.ckpt"
    _interrupted(ckpt)
    ckpt.write_bytes(b"")
    prev_path(ckpt).write_bytes(b"\0" * 64)
    trace = run_bo(get_problem("branin", 2), SPEC, seed=SEED, budget=BUDGET, n_init=N_INIT,
                   checkpoint=ckpt, **FAST)  # fmt: skip
    same_trace(trace, clean)
    assert (tmp_path / "run.ckpt.corrupt").exists()
    assert (tmp_path / "run.ckpt.prev.corrupt").exists()


def test_workflow_job_with_corrupt_checkpoint_succeeds(tmp_path) -> None:
    """Inside the workflow: a retry after a corrupt checkpoint ends with the right trace."""
    from boexplore.pipeline.runs_stage import run_from_spec

    problem = get_problem("branin", 2)
    path = save_instance(problem, tmp_path / "branin.json")
    ckpt_dir = tmp_path / "ckpt"
    ckpt_dir.mkdir()
    (ckpt_dir / "seed0.ckpt").write_bytes(np.random.default_rng(1).bytes(4096))
    out = tmp_path / "seed0.parquet"
    run_from_spec(path, "branin", "logei", SPEC, [0], 8, 4, dict(FAST), out, ckpt_dir)
    clean = run_bo(problem, SPEC, seed=0, budget=8, n_init=4, method_label="logei",
                   problem_label="branin", **FAST)  # fmt: skip
    same_trace(pd.read_parquet(out), clean)
    assert [p.name for p in ckpt_dir.iterdir()] == ["seed0.ckpt.corrupt"]
