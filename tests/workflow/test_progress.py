"""Cost-weighted progress and ETA of the workflow (boexplore.pipeline.progress); fast."""

from __future__ import annotations

import itertools
import json
import logging
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from wfhelpers import REPO

from boexplore.cli import main
from boexplore.pipeline import progress as pg
from boexplore.pipeline.paper2_grid import job_files, resolve_config
from boexplore.workflow_config import load_config

costs_st = st.dictionaries(
    st.text("abcdefgh", min_size=1, max_size=4),
    st.floats(0.0, 1e6, allow_nan=False),
    min_size=1,
    max_size=20,
)


@pytest.fixture(scope="module")
def smoke() -> dict:
    return load_config(REPO / "config" / "smoke.yaml")


@given(costs_st, st.data())
def test_fraction_monotone_bounded_and_one_when_all_done(costs, data) -> None:
    keys = sorted(costs)
    small = set(data.draw(st.lists(st.sampled_from(keys), unique=True)))
    large = small | set(data.draw(st.lists(st.sampled_from(keys), unique=True)))
    f_small, f_large = pg.cost_fraction(costs, small), pg.cost_fraction(costs, large)
    assert 0.0 <= f_small <= f_large <= 1.0
    assert pg.cost_fraction(costs, keys) == pytest.approx(1.0)
    assert pg.cost_fraction(costs, {"not-a-job"}) == (1.0 if sum(costs.values()) == 0 else 0.0)


def test_fraction_is_weighted_by_cost_not_by_count() -> None:
    costs = {"sobol": 1.0, "kg": 99.0}
    assert pg.cost_fraction(costs, {"kg"}) == pytest.approx(0.99)
    assert pg.cost_fraction(costs, {"sobol"}) == pytest.approx(0.01)  # not 50 %


@given(st.lists(st.floats(0.0, 1e5, allow_nan=False), min_size=1, max_size=30), st.integers(1, 64))
def test_wall_time_between_longest_job_and_serial_time(costs, cores) -> None:
    raw = {"speed": 1.0, "job_overhead_s": 0.0}
    wall = pg.predicted_wall_s(costs, cores, model=raw)
    assert max(costs) - 1e-9 <= wall <= sum(costs) + 1e-6
    assert pg.predicted_wall_s(costs, cores + 1, model=raw) <= wall + 1e-9


def test_wall_model_reproduces_the_measured_runs_it_was_fitted_on() -> None:
    """The plan line's wall time for the shipped configs is within 1.5x of the measured runs
    (data/timings/{default,smoke}.json, 2 idle cores); the raw CPU bound is not (control)."""
    import json
    from pathlib import Path

    from boexplore.workflow_config import load_config

    repo = Path(__file__).resolve().parents[2]
    for name, config in (("default", "config/config.yaml"), ("smoke", "config/smoke.yaml")):
        rec = json.loads((repo / "data" / "timings" / f"{name}.json").read_text())
        costs = list(pg.predicted_costs(load_config(repo / config)).values())
        n_other = rec["n_jobs"] - len(costs)
        wall = pg.predicted_wall_s(costs, rec["cores"], n_other)
        assert 1 / 1.5 <= wall / rec["wall_s"] <= 1.5, (name, wall, rec["wall_s"])
        if name == "default":  # control: the uncalibrated CPU bound misses by more than 1.5x
            raw = pg.predicted_wall_s(costs, 2, model={"speed": 1.0, "job_overhead_s": 0.0})
            assert raw / rec["wall_s"] > 1.5


def test_eta_starts_at_prediction_and_converges_to_measured_rate() -> None:
    # 2 cores predicted (rate 2 CPU-s per s), 1000 CPU-s left
    assert pg.eta_seconds(1000.0, 0.0, 0.0, 2.0, 50.0) == pytest.approx(500.0)
    # the run goes at half the predicted speed: after long enough the ETA says so
    eta = pg.eta_seconds(1000.0, 1e6, 1e6, 2.0, 50.0)
    assert eta == pytest.approx(1000.0, rel=1e-3)
    # and a fast run gets a shorter estimate than the prior
    assert pg.eta_seconds(1000.0, 4000.0, 1000.0, 2.0, 50.0) < 500.0
    assert pg.eta_seconds(0.0, 10.0, 10.0, 2.0, 50.0) == 0.0


@given(
    st.floats(1.0, 1e5),
    st.floats(0.0, 1e5),
    st.floats(0.0, 1e5),
    st.floats(0.1, 64.0),
    st.floats(1.0, 1e4),
)
def test_eta_shrinks_as_work_gets_done(remaining, done, elapsed, prior_rate, t0) -> None:
    eta = pg.eta_seconds(remaining, done, elapsed, prior_rate, t0)
    assert eta > 0
    assert pg.eta_seconds(remaining / 2, done, elapsed, prior_rate, t0) <= eta
    assert pg.eta_seconds(remaining, done + 10.0, elapsed, prior_rate, t0) <= eta


def test_format_duration() -> None:
    assert pg.format_duration(34) == "34 s"
    assert pg.format_duration(41 * 60) == "41 min"
    assert pg.format_duration(69 * 60) == "1 h 09 min"
    assert pg.format_duration(51 * 3600) == "2 d 03 h"
    assert pg.format_duration(float("inf")) == "?"


def test_job_outputs_match_the_workflow_paths(smoke) -> None:
    """Each compute job's marker file is the output its rule declares (paths of the .smk files)."""
    costs = pg.predicted_costs(smoke)
    run = smoke["run_name"]
    files = job_files(resolve_config(smoke["parametric"]), f"results/{run}", f"figures/{run}")
    declared = {f for k in ("e1", "e2", "e3_static", "e3_dynamic", "e4") for f in files[k]}
    p2 = {
        str(pg.job_output(f"results/{run}", *j.split(":", 1))) for j in costs if j.startswith("p2_")
    }
    assert p2 == declared
    assert str(pg.job_output("results/smoke", "bo_run", "branin/kg/seed0")) == (
        "results/smoke/runs/branin/kg/seed0.parquet"
    )
    assert str(pg.job_output("results/smoke", "score_run", "branin/kg/seed0")) == (
        "results/smoke/metrics/branin/kg/seed0.parquet"
    )
    with pytest.raises(ValueError):
        pg.job_output("results/smoke", "aggregate_metrics", "x")


def _touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")


def test_start_line_is_quick_and_a_resumed_run_counts_existing_outputs(smoke, tmp_path) -> None:
    t = time.perf_counter()
    plan, line = pg.start_run(smoke, 2, results_dir=tmp_path)
    assert time.perf_counter() - t < 10.0  # the first line must come within seconds
    n_bo = sum(k.startswith("bo_run:") for k in pg.predicted_costs(smoke))
    assert f"bo_run {n_bo} jobs" in line and "wall at 2 cores" in line
    assert "done already" not in line
    assert pg.read_plan(tmp_path) == plan

    bo = sorted(k for k in plan["costs"] if k.startswith("bo_run:"))
    score = next(k for k in plan["costs"] if k.startswith("score_run:"))
    tracker = pg.Tracker(plan, tmp_path)
    assert "bo_run 1/" in tracker.finished(bo[0])
    assert tracker.finished(score) is None  # a line per BO job only, but the cost counts
    line = tracker.finished(bo[1])
    want = 100 * pg.cost_fraction(plan["costs"], [*bo[:2], score])
    assert f"{want:.1f} % of predicted CPU done (bo_run 2/{n_bo})" in line
    assert "left" in line
    assert tracker.finished("bo_run:not/a/job") is None
    events = [r["event"] for r in pg.read_ledger(tmp_path / "logs" / pg.LEDGER_NAME)]
    assert events == ["start", "done", "done", "done"]

    # resume: outputs on disk count as done, the new plan covers the rest
    for jid in bo[:2]:
        _touch(pg.job_output(tmp_path, *jid.split(":", 1)))
    plan2, line = pg.start_run(smoke, 2, results_dir=tmp_path)
    assert "(2 done already)" in line and f"bo_run {n_bo - 2} jobs" in line
    state = pg.progress_state(plan2, plan2["done_at_start"])
    assert state["bo_done"] == 2 and 0.0 < state["fraction"] < 1.0
    assert state["fraction"] == pytest.approx(pg.cost_fraction(plan["costs"], bo[:2]))


def test_onstart_hook_plans_the_dag_jobs_and_follows_them(smoke, tmp_path, monkeypatch, caplog):
    """--until / explicit targets: the plan holds the DAG's jobs only, and a "Finished jobid"
    record of Snakemake's logger produces the progress line."""
    from snakemake.logging import logger as smk_logger

    monkeypatch.chdir(tmp_path)
    out = "results/smoke/runs/branin/logei/seed0.parquet"
    jobs = [
        SimpleNamespace(jobid=1, output=["results/smoke/problems/branin.json"]),
        SimpleNamespace(jobid=2, output=[out]),
    ]
    dag = SimpleNamespace(needrun_jobs=lambda: iter(jobs))
    wf = SimpleNamespace(cores=3, nodes=None, local_exec=True, dag=dag)
    before = list(smk_logger.handlers)
    try:
        pg.onstart_hook(wf, smoke)
        plan = pg.read_plan("results/smoke")
        assert list(plan["costs"]) == ["bo_run:branin/logei/seed0"] and plan["cores"] == 3
        (handler,) = [h for h in smk_logger.handlers if h not in before]
        handler.out = logging.getLogger("test-progress")
        with caplog.at_level(logging.INFO, logger="test-progress"):
            for jobid in (1, 2):
                handler.emit(
                    logging.makeLogRecord(
                        {"msg": "Finished", "event": "job_finished", "job_id": jobid}
                    )
                )
        lines = [r.getMessage() for r in caplog.records if r.name == "test-progress"]
        assert len(lines) == 1 and "100.0 % of predicted CPU done (bo_run 1/1)" in lines[0]
    finally:
        for h in list(smk_logger.handlers):
            if h not in before:
                smk_logger.removeHandler(h)


def test_hooks_never_raise(smoke, tmp_path, caplog) -> None:
    pg.onstart_hook(SimpleNamespace(), smoke)  # no DAG: logs "no plan" and returns
    blocker = tmp_path / "file"
    blocker.write_text("")  # the ledger cannot be written under a file
    plan = {"costs": {"bo_run:x": 1.0}, "done_at_start": [], "cores": 1, "started": 0.0}
    tracker = pg.Tracker(plan, blocker)
    handler = pg.JobFinishedHandler(tracker, {1: "bo_run:x"}, logging.getLogger("test-progress"))
    with caplog.at_level(logging.INFO, logger="test-progress"):
        handler.emit(logging.makeLogRecord({"event": "job_finished", "job_id": 1}))
    assert "[progress] unavailable" in caplog.text


def test_ledger_skips_a_torn_line(tmp_path) -> None:
    path = tmp_path / "logs" / pg.LEDGER_NAME
    pg.append_ledger(path, {"event": "done", "key": "a"})
    with open(path, "a") as fh:
        fh.write('{"event": "do')
    pg.append_ledger(path, {"event": "done", "key": "b"})
    assert [r["key"] for r in pg.read_ledger(path)] == ["a"]
    assert json.loads(path.read_text().splitlines()[0])["key"] == "a"


def test_progress_cli(smoke, tmp_path, capsys) -> None:
    cfg = REPO / "config" / "smoke.yaml"
    assert main(["progress", "--configfile", str(cfg), "--results-dir", str(tmp_path)]) == 0
    assert "no run started" in capsys.readouterr().out
    pg.start_run(smoke, 2, results_dir=tmp_path)
    assert main(["progress", "--configfile", str(cfg), "--results-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "[progress] plan:" in out and "0.0 % of predicted CPU done" in out


def test_released_traces_are_planned_as_restores(tmp_path) -> None:
    costs = {"bo_run:p/m/chunk0": 100.0, "bo_run:p/m/chunk1": 100.0, "score_run:p/m/chunk0": 5.0}
    release = tmp_path / "traces"
    (release / "p" / "m").mkdir(parents=True)
    (release / "p" / "m" / "chunk0.parquet").write_bytes(b"")
    out = pg.relabel_restored(costs, str(release))
    assert out == {
        "restore_run:p/m/chunk0": pg.RESTORE_CPU_S,
        "bo_run:p/m/chunk1": 100.0,  # not in the release: BO runs it
        "score_run:p/m/chunk0": 5.0,
    }
    assert pg.job_output("R", "restore_run", "p/m/chunk0") == pg.job_output(
        "R", "bo_run", "p/m/chunk0"
    )
    # control: without a release nothing is relabelled
    assert pg.relabel_restored(costs, None) == costs
    line = pg.format_plan_line(pg.make_plan(out, [], 2, "r"))
    assert "restore_run 1 job" in line and "bo_run 1 job" in line


def test_fraction_does_not_depend_on_the_order_of_the_jobs() -> None:
    # found by hypothesis in CI: a plain sum gave 1.0 for one set order and 0.9999999999999998
    # for another order of the same jobs
    costs = {"b": 0.0, "c": 1.2556982884125318, "f": 262141.0, "af": 1.0795502910914365,
             "dec": 1.9845310206874274}  # fmt: skip
    fractions = {
        pg.cost_fraction({k: costs[k] for k in order}, ["dec", "af", "c", "f"])
        for order in itertools.permutations(costs)
    }
    assert fractions == {1.0}


def test_targets_grouped_unlike_the_config_are_costed_from_their_seeds(tmp_path) -> None:
    """A config that runs seeds 0-1 as one job, asked for ``seed1.parquet`` by path (Snakemake
    accepts any seed grouping): the plan costs that file from its one seed instead of being
    empty; a path outside the config is left out."""
    config = load_config(REPO / "config" / "smoke.yaml")
    config["seeds_per_job"] = 2
    from boexplore.workflow_config import run_table

    row = next(r for r in run_table(config) if r["method"] == "logei")
    assert row["chunk"] == "seeds0-1"
    runs = tmp_path / "runs" / row["problem"]
    wanted = [str(runs / "logei" / "seed1.parquet"), str(runs / "nope" / "seed1.parquet")]
    plan, line = pg.start_run(config, 2, wanted, results_dir=tmp_path)
    key = f"bo_run:{row['problem']}/logei/seed1"
    assert list(plan["costs"]) == [key] and "bo_run 1 job" in line
    pair = pg.predicted_costs(config)[f"bo_run:{row['problem']}/logei/seeds0-1"]
    assert 0 < plan["costs"][key] < pair  # one seed of two (plus the start-up of a job)


def test_a_job_the_release_holds_by_seed_is_planned_as_a_restore(monkeypatch) -> None:
    """The long tier releases its low-d runs one file per seed; its config runs four seeds per
    job: the plan counts those jobs as restores, not BO."""
    monkeypatch.chdir(REPO)
    config = load_config(REPO / "config" / "replicate-long.yaml")
    costs = pg.predicted_costs(config)
    assert "restore_run:lo_branin2/logei/seeds0-3" in costs
    assert "bo_run:lo_branin2/logei/seeds0-3" not in costs
    config["release"]["traces"] = "data/no-such-release"  # control: nothing released
    assert "bo_run:lo_branin2/logei/seeds0-3" in pg.predicted_costs(config)
