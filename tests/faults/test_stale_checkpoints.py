"""Issue 23 case 1: a checkpoint of another run (instance, engine, budget, format) never resumes."""

from __future__ import annotations

import json
import logging
import pickle

import pandas as pd
import pytest
from faulthelpers import FAST, Kill, kill_at, same_trace

from boexplore.bo import run_bo
from boexplore.bo.checkpoint import default_checkpoint_path
from boexplore.cli import main
from boexplore.problems import get_problem, save_instance

pytestmark = pytest.mark.faults

# An instance-dependent problem: the embedding changes with instance_seed.
PROBLEM, DIM, METHOD, BUDGET, N_INIT = "hartmann6_embedded", 8, "ucb(beta=4)", 12, 5


def _problem(instance_seed: int):
    return get_problem(PROBLEM, DIM, instance_seed=instance_seed)


def test_cli_instance_seed_change_starts_afresh(tmp_path, caplog) -> None:
    """The issue's CLI case: interrupted at instance 0, rerun with instance 1 -> a clean instance-1 trace."""
    out = tmp_path / "e.parquet"
    with pytest.raises(Kill):
        run_bo(_problem(0), METHOD, seed=0, budget=BUDGET, n_init=N_INIT,
               checkpoint=default_checkpoint_path(out), callback=kill_at(3), **FAST)  # fmt: skip
    args = ["run", "--problem", PROBLEM, "--dim", str(DIM), "--instance-seed", "1",
            "--method", METHOD, "--seed", "0", "--budget", str(BUDGET), "--n-init", str(N_INIT),
            "--out", str(out), "--quiet", "--settings", json.dumps(FAST),
            "--numerics", "unpinned"]  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="boexplore.bo"):
        assert main(args) == 0
    clean = run_bo(_problem(1), METHOD, seed=0, budget=BUDGET, n_init=N_INIT, **FAST)
    same_trace(pd.read_parquet(out), clean)
    assert (tmp_path / "e.parquet.ckpt.stale-identity").exists()
    why = [r.getMessage() for r in caplog.records if "not used" in r.getMessage()]
    assert len(why) == 1 and "problem_sha256" in why[0], why  # one line saying why
    assert not default_checkpoint_path(out).exists()


def _workflow_job(problem_json, ckpt_dir, out):
    from boexplore.pipeline.runs_stage import run_from_spec

    run_from_spec(problem_json, "p", "ucb", METHOD, [0], BUDGET, N_INIT, dict(FAST), out, ckpt_dir)


def test_workflow_problem_file_change_starts_afresh(tmp_path) -> None:
    """Changed instance_seed in a config: the job must not resume the old instance's run."""
    old = save_instance(_problem(0), tmp_path / "old" / "p.json")
    new = save_instance(_problem(1), tmp_path / "new" / "p.json")
    ckpt_dir = tmp_path / "checkpoints"
    with pytest.raises(Kill):  # the old instance's job, killed after iteration 3
        run_bo(_problem(0), METHOD, seed=0, budget=BUDGET, n_init=N_INIT,
               checkpoint=ckpt_dir / "seed0.ckpt", method_label="ucb", problem_label="p",
               callback=kill_at(3), **FAST)  # fmt: skip
    assert old.exists()
    out = tmp_path / "seed0.parquet"
    _workflow_job(new, ckpt_dir, out)
    clean = run_bo(_problem(1), METHOD, seed=0, budget=BUDGET, n_init=N_INIT,
                   method_label="ucb", problem_label="p", **FAST)  # fmt: skip
    same_trace(pd.read_parquet(out), clean)


def test_workflow_removes_checkpoints_so_forcerun_starts_afresh(tmp_path) -> None:
    path = save_instance(_problem(0), tmp_path / "p.json")
    ckpt_dir = tmp_path / "checkpoints"
    _workflow_job(path, ckpt_dir, tmp_path / "a.parquet")
    assert not any(ckpt_dir.iterdir()), "a finished job leaves no checkpoint behind"


def test_engine_version_bump_starts_afresh(tmp_path, monkeypatch, caplog) -> None:
    ckpt = tmp_path / "run.ckpt"
    problem = get_problem("branin", 2)
    run_bo(problem, "logei", seed=1, budget=8, n_init=4, checkpoint=ckpt, **FAST)
    assert ckpt.exists()  # a complete run's checkpoint (the library keeps it; CLI/workflow don't)
    import boexplore.bo.engine as engine

    monkeypatch.setattr(engine, "ENGINE_VERSION", engine.ENGINE_VERSION + 1)
    seen: list[int] = []
    with caplog.at_level(logging.WARNING, logger="boexplore.bo"):
        run_bo(problem, "logei", seed=1, budget=8, n_init=4, checkpoint=ckpt,
               callback=lambda it, tr: seen.append(it), **FAST)  # fmt: skip
    assert seen[0] == 0, "the fixed engine recomputed the run from its first iteration"
    assert (tmp_path / "run.ckpt.stale-identity").exists()
    assert any("engine" in r.getMessage() and str(ckpt) in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("spec", ["logei", "ucb(beta=4)+q3"])
def test_larger_budget_continues_from_the_checkpoint(tmp_path, spec) -> None:
    problem, ckpt = get_problem("branin", 2), tmp_path / "run.ckpt"
    run_bo(problem, spec, seed=2, budget=10, n_init=4, checkpoint=ckpt, **FAST)
    seen: list[int] = []
    grown = run_bo(problem, spec, seed=2, budget=13, n_init=4, checkpoint=ckpt,
                   callback=lambda it, tr: seen.append(it), **FAST)  # fmt: skip
    same_trace(grown, run_bo(problem, spec, seed=2, budget=13, n_init=4, **FAST))
    assert seen[0] > 1, "a larger budget continues the stored prefix"


def test_smaller_budget_is_never_a_truncated_longer_run(tmp_path) -> None:
    problem, ckpt = get_problem("branin", 2), tmp_path / "run.ckpt"
    run_bo(problem, "logei", seed=3, budget=10, n_init=4, checkpoint=ckpt, **FAST)
    short = run_bo(problem, "logei", seed=3, budget=7, n_init=4, checkpoint=ckpt, **FAST)
    same_trace(short, run_bo(problem, "logei", seed=3, budget=7, n_init=4, **FAST))
    assert (tmp_path / "run.ckpt.stale-budget").exists()


def test_cut_last_batch_is_not_a_prefix_of_a_larger_budget(tmp_path) -> None:
    """budget 9 with q=2 ends with a 1-point batch; budget 11 needs a 2-point batch there."""
    problem, ckpt = get_problem("branin", 2), tmp_path / "run.ckpt"
    run_bo(problem, "random+q2", seed=4, budget=9, n_init=4, checkpoint=ckpt)
    longer = run_bo(problem, "random+q2", seed=4, budget=11, n_init=4, checkpoint=ckpt)
    same_trace(longer, run_bo(problem, "random+q2", seed=4, budget=11, n_init=4))
    assert (tmp_path / "run.ckpt.stale-budget").exists()


class _Payload:
    """Unpickling this creates a marker file: proof that a pickle checkpoint ran code."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_old_pickle_checkpoint_is_never_loaded(tmp_path) -> None:
    marker, ckpt = tmp_path / "code-ran", tmp_path / "run.ckpt"
    ckpt.write_bytes(pickle.dumps({"version": 1, "key": _Payload(str(marker))}, protocol=5))
    problem = get_problem("branin", 2)
    trace = run_bo(problem, "random", seed=0, budget=6, n_init=3, checkpoint=ckpt)
    assert not marker.exists(), "loading a checkpoint executed code"
    same_trace(trace, run_bo(problem, "random", seed=0, budget=6, n_init=3))
    assert (tmp_path / "run.ckpt.stale-legacy").exists()
