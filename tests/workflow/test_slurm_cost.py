"""Cost model behind `boexplore estimate` and the SLURM requests (fast unit tests)."""

from __future__ import annotations

import copy
import math

import pytest
from wfhelpers import REPO

from boexplore.bo.methods import parse_method
from boexplore.cli import main
from boexplore.pipeline import cost
from boexplore.workflow_config import load_config, run_table


@pytest.fixture(scope="module")
def paper() -> dict:
    return load_config(REPO / "config" / "paper.yaml")


@pytest.fixture(scope="module")
def smoke() -> dict:
    return load_config(REPO / "config" / "smoke.yaml")


def test_timing_tables_parse_and_skip_guarded_cells() -> None:
    rows = cost.parse_timing_tables((REPO / "docs" / "bo_timings.md").read_text())
    assert len(rows) > 80
    kg = [r for r in rows if r["method"] == "kg"]
    # only the d = 2, n = 50 KG cell finished without hitting the acquisition time guard
    assert [(r["n"], r["d"]) for r in kg] == [(50, 2)]
    assert all(r["acq_s"] >= 0 and r["fit_s"] >= 0 for r in rows)


def test_iteration_model_recovers_known_coefficients() -> None:
    rows = []
    for method, a in (("logei", 0.2), ("kg", 20.0)):
        for n in (20, 50, 100, 300):
            for d in (2, 10, 60, 180):
                g = (n / 100) ** 0.3 * (1 + d / 10) ** 0.8
                rows.append(
                    {
                        "method": method,
                        "n": n,
                        "d": d,
                        "fit_s": 0.5 * g,
                        "acq_s": a * g,
                        "restarts": 10,
                        "raw": 512,
                        "q": 1,
                        "fantasies": 64,
                    }
                )
    model = cost.fit_iteration_model(rows)
    assert model["acq_scale"]["logei"] == pytest.approx(0.2, rel=1e-6)
    assert model["acq_scale"]["kg"] == pytest.approx(20.0, rel=1e-6)
    assert model["acq_shape"]["b"] == pytest.approx(0.3, abs=1e-6)
    assert model["fit"]["c"] == pytest.approx(0.8, abs=1e-6)


def test_costs_grow_with_budget_dimension_and_method(smoke) -> None:
    cfg = copy.deepcopy(smoke)
    small = cost.bo_job_cost(cfg, "branin", "logei", 1).cpu_s
    cfg["problems"]["branin"]["budget"] = 40
    assert cost.bo_job_cost(cfg, "branin", "logei", 1).cpu_s > small
    assert (
        cost.bo_job_cost(cfg, "branin", "kg", 1).cpu_s
        > cost.bo_job_cost(cfg, "branin", "logei", 1).cpu_s
    )
    assert cost.bo_job_cost(cfg, "hartmann6_d50", "logei", 1).cpu_s > small
    assert (
        cost.bo_job_cost(cfg, "branin", "logei", 2).cpu_s
        > cost.bo_job_cost(cfg, "branin", "logei", 1).cpu_s
    )
    # model-free methods cost the start-up plus evaluations only
    cal = cost.load_calibration()
    steps = cfg["problems"]["branin"]["budget"] - cfg["n_init"]
    free = cal["bo"]["startup_s"] + steps * cal["bo"]["iteration_overhead_s"]
    assert cost.bo_job_cost(cfg, "branin", "random", 1).cpu_s == pytest.approx(free, abs=0.05)


def test_acquisition_time_is_capped_by_the_guard(paper) -> None:
    cal = cost.load_calibration()
    kg = parse_method(paper["methods"]["kg"])
    bo = {**paper["bo"], "acq_timeout": 30}
    _, acq = cost.bo_iteration_seconds(kg, 500, 180, bo, cal)
    assert acq == pytest.approx(30)  # the hard guard stops the step for every method
    pes = parse_method("pes")
    _, acq = cost.bo_iteration_seconds(pes, 500, 180, {**bo, "acq_timeout": 1}, cal)
    assert acq == pytest.approx(1)
    batch = parse_method("kg+q4")
    _, acq = cost.bo_iteration_seconds(batch, 500, 180, {**bo, "acq_timeout": 30}, cal)
    assert acq == pytest.approx(30)  # one guard per step, whatever q
    _, unguarded = cost.bo_iteration_seconds(kg, 500, 180, {**bo, "acq_timeout": None}, cal)
    assert unguarded > 33


def test_estimate_names_the_steps_the_guard_would_replace(paper) -> None:
    """Steps predicted over acq_timeout are counted per method (they become random points),
    more of them under a tighter limit, none without a limit or for model-free methods."""
    config = copy.deepcopy(paper)
    assert cost.timed_out_steps({**config, "bo": {**config["bo"], "acq_timeout": None}}) == []
    counts = []
    for timeout in (3000.0, 300.0, 30.0):
        config["bo"] = {**paper["bo"], "acq_timeout": timeout, "by_method": {}}
        rows = {r["method"]: r for r in cost.timed_out_steps(config)}
        assert "random" not in rows and "sobol" not in rows
        counts.append(rows["kg"]["steps_over"] if "kg" in rows else 0)
        for r in rows.values():
            assert 0 < r["steps_over"] <= r["steps"] and r["first_n"] >= paper["n_init"]
    assert counts[0] < counts[1] < counts[2]
    text = cost.format_timed_out(cost.timed_out_steps(config))
    assert "kg:" in text and "random points" in text
    # the paper config gives qKG a limit its predicted steps stay under
    assert "kg" not in {r["method"] for r in cost.timed_out_steps(paper)}


def test_requests_are_capped_and_grow_with_attempts(paper) -> None:
    job = cost.bo_job_cost(paper, "lasso180", "kg", 1)
    assert job.cpu_s > 24 * 3600  # longer than a 24 h partition allows
    assert cost.runtime_request_min(job, paper) == 1440
    assert cost.segments_needed(job, paper) == math.ceil(2 * job.cpu_s / 60 / 1440)
    short = cost.bo_job_cost(paper, "branin", "random", 5)
    r1, r2 = cost.runtime_request_min(short, paper, 1), cost.runtime_request_min(short, paper, 2)
    assert 10 <= r1 < r2 <= 1440
    assert cost.mem_request_mb(short, paper, 2) > cost.mem_request_mb(short, paper, 1) >= 1000
    capped = copy.deepcopy(paper)
    capped["resources"]["max_runtime_min"] = 120
    assert cost.runtime_request_min(job, capped) == 120


def test_seed_chunks_follow_cost(paper) -> None:
    assert cost.chunk_size(paper, "branin", "kg") == 1
    assert cost.chunk_size(paper, "hartmann6", "mes") == 1
    assert cost.chunk_size(paper, "lasso180", "logei") == 1  # d >= 50
    assert cost.chunk_size(paper, "branin", "random") == paper["seeds_per_job"]
    tight = copy.deepcopy(paper)
    tight["resources"]["max_runtime_min"] = 10
    assert cost.chunk_size(tight, "hartmann6", "logei") < paper["seeds_per_job"]
    seeds = {len(r["seeds"]) for r in run_table(paper)}
    assert seeds == {1, paper["seeds_per_job"]} or seeds <= set(
        range(1, paper["seeds_per_job"] + 1)
    )


@pytest.mark.parametrize("name", ["smoke", "config", "paper"])
def test_estimate_cli_prints_every_stage(name: str, capsys) -> None:
    assert main(["estimate", "--configfile", str(REPO / "config" / f"{name}.yaml")]) == 0
    out = capsys.readouterr().out
    for stage in ("bo_run", "score_run", "p2_e1", "p2_e4", "total"):
        assert stage in out
    total = next(line for line in out.splitlines() if line.startswith("total"))
    assert float(total.split()[2]) > 0  # CPU-hours


def test_compare_and_calibrate_on_benchmark_files(smoke, tmp_path) -> None:
    """Benchmarks made from known p2 coefficients: calibration recovers them, compare says 1x."""
    from boexplore.pipeline.paper2_grid import resolve_config

    cfg = copy.deepcopy(smoke)
    units = cost.parametric_units(resolve_config(cfg["parametric"]))
    a, b = 10.0, 0.02  # far from the shipped coefficients
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for rule, key, u in units:
        f = tmp_path / "benchmarks" / rule / f"{key}.tsv"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(header + f"1\t0:00:01\t500\t0\t0\t0\t0\t0\t1\t{a + b * u}\n")
    cal = cost.calibrate(cfg, tmp_path)
    for rule in {r for r, _, _ in units}:
        n_jobs = sum(r == rule for r, _, _ in units)
        if n_jobs >= 2 and len({u for r, _, u in units if r == rule}) >= 2:
            assert cal["parametric"][rule]["a"] == pytest.approx(a, rel=1e-3)
            assert cal["parametric"][rule]["b"] == pytest.approx(b, rel=1e-3)
        assert cal["parametric"][rule]["mem_mb"] == 500
    _, summary = cost.compare(cfg, tmp_path, cal)
    total = next(r for r in summary if r["rule"] == "all")
    assert total["jobs"] == len(units)
    assert total["within_2x"] == 1.0
    # control: the shipped coefficients do not fit these made-up times
    _, shipped = cost.compare(cfg, tmp_path, cost.load_calibration())
    assert next(r for r in shipped if r["rule"] == "all")["median_ratio"] != pytest.approx(
        1.0, rel=0.05
    )


def test_cost_classes_come_from_the_method_registry() -> None:
    """One registry: the cost model's classes, the schema default and METHODS agree."""
    from boexplore.bo.methods import METHODS, methods_of_class
    from boexplore.schema import schema_defaults

    assert cost.MODEL_FREE == ("random", "sobol")
    assert set(cost.EXPENSIVE_METHODS) == {"kg", "mes", "gibbon", "jes", "pes"}
    default = schema_defaults("config")["resources"]["expensive_methods"]
    assert set(default) == set(methods_of_class("expensive"))
    assert all(METHODS[m].model_based == (m not in cost.MODEL_FREE) for m in METHODS)
    assert not parse_method("sobol").model_based and parse_method("kg+q2").model_based
    with pytest.raises(ValueError, match="cost class"):
        methods_of_class("cheap")


def test_per_method_settings_change_that_methods_cost_only(paper) -> None:
    """``bo.by_method`` enters the cost model for its method and leaves the others alone."""
    cheap = copy.deepcopy(paper)
    kg = paper["bo"].get("by_method", {}).get("kg", {})
    cheap["bo"]["by_method"] = {"kg": {**kg, "num_restarts": 5, "raw_samples": 512}}
    base_kg, cut_kg = (cost.bo_job_cost(c, "hartmann6", "kg", 1).cpu_s for c in (paper, cheap))
    base_ei, same_ei = (cost.bo_job_cost(c, "hartmann6", "logei", 1).cpu_s for c in (paper, cheap))
    assert cut_kg < 0.75 * base_kg
    assert same_ei == base_ei


def test_an_extension_costs_the_iterations_after_its_released_prefix():
    from boexplore.bo.methods import parse_method
    from boexplore.pipeline.cost import bo_seed_seconds, config_calibration

    cal = config_calibration({})
    spec, bo = parse_method("logei+q2"), {}
    full = bo_seed_seconds(spec, "hartmann", 6, 40, 10, bo, cal)
    head = bo_seed_seconds(spec, "hartmann", 6, 20, 10, bo, cal)
    tail = bo_seed_seconds(spec, "hartmann", 6, 40, 10, bo, cal, start=20)
    assert 0 < tail < full
    assert abs(head + tail - full) < 1e-9 * full
    assert bo_seed_seconds(spec, "hartmann", 6, 40, 10, bo, cal, start=40) == 0.0


def test_estimate_says_what_the_release_already_holds(tmp_path, capsys) -> None:
    """The replicate release holds every BO job of its config complete: nothing left to run;
    a release without one seed's trace leaves that job to run."""
    from boexplore.workflow_config import load_config

    config = load_config(REPO / "config" / "replicate.yaml")
    config["release"]["traces"] = str(REPO / config["release"]["traces"])
    n_jobs = sum(1 for j in cost.workflow_job_costs(config) if j.rule == "bo_run")
    n, cpu = cost.released_complete(config)
    assert n == n_jobs and cpu > 0
    row = run_table(config)[0]
    partial = tmp_path / "traces" / row["problem"] / row["method"]
    partial.mkdir(parents=True)
    src = REPO / config["release"]["traces"] / row["problem"] / row["method"]
    for f in src.glob("*.parquet"):
        (partial / f.name).write_bytes(f.read_bytes())
    config["release"]["traces"] = str(tmp_path / "traces")
    held = cost.released_complete(config)[0]
    assert (
        1
        <= held
        <= sum(
            r["problem"] == row["problem"] and r["method"] == row["method"]
            for r in run_table(config)
        )
    )
    short = tmp_path / "short" / row["problem"] / row["method"]  # a new root: reads are cached
    short.mkdir(parents=True)
    for f in sorted(src.glob("*.parquet"))[1:]:
        (short / f.name).write_bytes(f.read_bytes())
    config["release"]["traces"] = str(tmp_path / "short")
    assert cost.released_complete(config)[0] < held
    assert main(["estimate", "--configfile", str(REPO / "config" / "replicate.yaml")]) == 0
    assert "BO still to run 0.0 CPU-h" in capsys.readouterr().out


def test_long_budget_release_holds_every_bo_job() -> None:
    """The long tier's release is complete: its workflow rebuilds tables and figures without
    BO (low-d jobs restore from per-seed files, high-d ones from 100-evaluation traces)."""
    from boexplore.workflow_config import load_config

    config = load_config(REPO / "config" / "replicate-long.yaml")
    config["release"]["traces"] = str(REPO / config["release"]["traces"])
    n_jobs = sum(1 for j in cost.workflow_job_costs(config) if j.rule == "bo_run")
    assert cost.released_complete(config)[0] == n_jobs
