"""Data release: compact traces round-trip, and the workflow restores them instead of running BO."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from wfhelpers import REPO, run_snakemake

from boexplore.bo.loop import run_bo
from boexplore.pipeline.release import compact, expand, export_traces, restore_trace
from boexplore.problems import get_problem


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=40))
def test_compact_expand_keeps_values_to_float32_and_running_max(ys):
    y = np.asarray(ys)
    trace = pd.DataFrame({"seed": 0, "eval_index": np.arange(len(y)), "y": y,
                          "best_so_far": np.maximum.accumulate(y)})  # fmt: skip
    back = expand(compact(trace))
    assert back["y"].dtype == np.float64 and back["seed"].dtype == trace["seed"].dtype
    np.testing.assert_allclose(back["y"], y, rtol=1e-6, atol=1e-30)
    # float32 rounding is monotone: the stored best is still the running max of the stored y
    np.testing.assert_array_equal(back["best_so_far"], np.maximum.accumulate(back["y"]))


def _config(tmp_path, release: bool) -> str:
    text = (
        "run_name: rel\nproblems: {b2: {name: branin, dim: 2}}\n"
        "methods: {random: random, sobol: sobol}\nseeds: [0, 1]\nseeds_per_job: 2\n"
        "budget: 8\nn_init: 4\nparametric: {enabled: false}\n"
    )
    if release:
        text += "release: {traces: released}\n"
    path = tmp_path / ("release.yaml" if release else "plain.yaml")
    path.write_text(text)
    return str(path)


def _release_random_b2(tmp_path):
    """Seeds 0 and 1 of `random` on Branin (budget 8) in one chunk file, exported to
    ``released/``: (the float64 trace, the release files)."""
    runs = tmp_path / "made" / "b2" / "random"
    runs.mkdir(parents=True)
    problem = get_problem("branin", 2)
    trace = pd.concat(
        [run_bo(problem, "random", seed=s, budget=8, n_init=4, problem_label="b2") for s in (0, 1)]
    )
    trace.to_parquet(runs / "seeds0-1.parquet", index=False)
    return trace, export_traces(tmp_path / "made", tmp_path / "released")


def test_workflow_restores_released_traces_and_falls_back_to_bo(tmp_path):
    # a released trace for `random` only; `sobol` is missing from the release
    trace, files = _release_random_b2(tmp_path)
    assert len(files) == 1 and pd.read_parquet(files[0])["x_0"].dtype == np.float32
    stamp = files[0].stat().st_mtime_ns
    assert export_traces(tmp_path / "made", tmp_path / "released") == files  # incremental
    assert files[0].stat().st_mtime_ns == stamp

    proc = run_snakemake(["-n", "--cores", "1", "--until", "score_run", "--configfile",
                          _config(tmp_path, True)], cwd=tmp_path, timeout=180)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "restore_run" in out and "bo_run" in out  # sobol falls back to BO

    proc = run_snakemake(["results/rel/metrics/b2/random/seeds0-1.parquet", "--cores", "1",
                          "--configfile", _config(tmp_path, True)],
                         cwd=tmp_path, timeout=300)  # fmt: skip
    restored = tmp_path / "results/rel/runs/b2/random/seeds0-1.parquet"
    assert restored.exists(), (proc.stdout + proc.stderr)[-3000:]
    back = pd.read_parquet(restored)
    assert back["x_0"].dtype == np.float64
    np.testing.assert_allclose(back["x_0"], trace["x_0"], rtol=1e-6)
    assert (tmp_path / "results/rel/metrics/b2/random/seeds0-1.parquet").exists()
    assert not (tmp_path / "results/rel/runs/b2/sobol").exists()

    # without a release, the same config plans BO only (control)
    proc = run_snakemake(["-n", "--cores", "1", "--until", "score_run", "--configfile",
                          _config(tmp_path, False)], cwd=tmp_path / "made", timeout=180)  # fmt: skip
    assert "restore_run" not in proc.stdout + proc.stderr


def test_restore_rejects_empty_trace(tmp_path):
    import pytest

    empty = tmp_path / "e.parquet"
    pd.DataFrame({"y": pd.Series([], dtype=np.float32)}).to_parquet(empty)
    with pytest.raises(ValueError, match="no rows"):
        restore_trace(empty, tmp_path / "out.parquet")


def test_workflow_extends_a_released_trace_shorter_than_the_budget(tmp_path):
    """Budget 8 released (2 seeds per file), 12 configured in a longer tier with one seed per
    job: each bo_run finds its seed's released trace and continues it."""
    _release_random_b2(tmp_path)
    problem = get_problem("branin", 2)
    config = tmp_path / "long.yaml"
    config.write_text(
        Path(_config(tmp_path, False)).read_text().replace("budget: 8", "budget: 12")
        .replace("methods: {random: random, sobol: sobol}", "methods: {random: random}")
        .replace("seeds_per_job: 2", "seeds_per_job: 1")
        + "release: {traces: released_long, extend_from: released}\n"
    )  # fmt: skip
    target = "results/rel/runs/b2/random/seed1.parquet"
    proc = run_snakemake([target, "--cores", "1", "--configfile", str(config)],
                         cwd=tmp_path, timeout=300)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "rule bo_run" in out and "released/b2/random/seeds0-1.parquet" in out
    long = pd.read_parquet(tmp_path / target)
    assert long["seed"].tolist() == [1] * 12
    released = pd.read_parquet(tmp_path / "released/b2/random/seeds0-1.parquet")
    np.testing.assert_array_equal(
        long.iloc[:8][["x_0", "x_1", "y"]].to_numpy(),
        released[released["seed"] == 1][["x_0", "x_1", "y"]].to_numpy(np.float64),
    )
    assert long.attrs["boexplore"]["extended_from"]["rows"] == 16
    # a continuation is the longer run: same as 12 fresh evaluations up to float32 rounding
    fresh = run_bo(problem, "random", seed=1, budget=12, n_init=4, problem_label="b2")
    np.testing.assert_allclose(long["y"], fresh["y"], rtol=1e-5)

    # control: with extension off, the job re-runs from the start (no released_prefix input)
    config.write_text(config.read_text().replace("extend_from: released}",
                                                 "extend_from: released, extend: false}"))  # fmt: skip
    proc = run_snakemake(["-n", "--forceall", target, "--cores", "1", "--configfile",
                          str(config)], cwd=tmp_path, timeout=180)  # fmt: skip
    assert "rule bo_run" in proc.stdout + proc.stderr
    assert "released/b2/random" not in proc.stdout + proc.stderr


def _per_seed_release(tmp_path):
    """The two seeds of `_release_random_b2` released as one file per seed."""
    trace, (chunk,) = _release_random_b2(tmp_path)
    per_seed = tmp_path / "per_seed" / "b2" / "random"
    per_seed.mkdir(parents=True)
    full = pd.read_parquet(chunk)
    for s in (0, 1):
        part = full[full["seed"] == s].reset_index(drop=True)
        part.attrs = {"boexplore": {"engine": {"v": 1}, "git_commit": "ab"[s], "extended_from": {
            "files": {f"src{s}.parquet": f"sha{s}"}, "rows": 16}}}  # fmt: skip
        part.to_parquet(per_seed / f"seed{s}.parquet", index=False)
    return full, per_seed


def test_a_job_restores_from_a_release_grouped_by_seed(tmp_path):
    import pytest

    from boexplore.pipeline.release import restore_seeds

    full, per_seed = _per_seed_release(tmp_path)
    out = restore_seeds(sorted(per_seed.glob("*.parquet"))[::-1], [0, 1], tmp_path / "j.parquet")
    back = pd.read_parquet(out)
    pd.testing.assert_frame_equal(back, expand(full).reset_index(drop=True))
    files = back.attrs["boexplore"]["extended_from"]["files"]
    assert back.attrs["boexplore"]["git_commits"] == ["a", "b"]
    assert files == {"src0.parquet": "sha0", "src1.parquet": "sha1"}
    with pytest.raises(ValueError, match="seed 2"):
        restore_seeds([per_seed / "seed0.parquet"], [0, 2], tmp_path / "k.parquet")
    other = pd.read_parquet(per_seed / "seed1.parquet")
    other.attrs["boexplore"]["engine"] = {"v": 2}
    other.to_parquet(per_seed / "seed1.parquet", index=False)
    with pytest.raises(ValueError, match="identity"):
        restore_seeds(sorted(per_seed.glob("*.parquet")), [0, 1], tmp_path / "m.parquet")


def test_workflow_restores_a_two_seed_job_from_per_seed_files(tmp_path):
    _, per_seed = _per_seed_release(tmp_path)
    config = Path(_config(tmp_path, False))
    config.write_text(config.read_text().replace("methods: {random: random, sobol: sobol}",
                                                 "methods: {random: random}")
                      + "release: {traces: per_seed}\n")  # fmt: skip
    proc = run_snakemake(["-n", "--cores", "1", "--until", "score_run", "--configfile",
                          str(config)], cwd=tmp_path, timeout=180)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "restore_run" in out and "rule bo_run" not in out
    assert "per_seed/b2/random/seed0.parquet" in out and "per_seed/b2/random/seed1.parquet" in out
    # control: one seed missing from the release -> the job runs BO
    (per_seed / "seed1.parquet").unlink()
    proc = run_snakemake(["-n", "--cores", "1", "--until", "score_run", "--configfile",
                          str(config)], cwd=tmp_path, timeout=180)  # fmt: skip
    assert "bo_run" in proc.stdout + proc.stderr


def test_export_keeps_a_release_file_whose_trace_is_unchanged(tmp_path):
    import os

    _, (released,) = _release_random_b2(tmp_path)
    made = tmp_path / "made" / "b2" / "random" / "seeds0-1.parquet"
    restore_trace(released, made)  # as the workflow does: the run file is now newer
    os.utime(released, ns=(1, 1))
    export_traces(tmp_path / "made", tmp_path / "released")
    assert released.stat().st_mtime_ns == 1  # same trace: not rewritten
    changed = pd.read_parquet(made)
    changed.loc[0, "y"] += 1.0
    changed.to_parquet(made, index=False)
    export_traces(tmp_path / "made", tmp_path / "released")
    assert released.stat().st_mtime_ns > 1


def test_export_skips_a_job_file_whose_seeds_the_release_holds_per_seed(tmp_path):
    from boexplore.pipeline.release import restore_seeds

    _, per_seed = _per_seed_release(tmp_path)
    runs = tmp_path / "runs" / "b2" / "random"
    restore_seeds(sorted(per_seed.glob("*.parquet")), [0, 1], runs / "seeds0-1.parquet")
    export_traces(tmp_path / "runs", tmp_path / "per_seed")
    assert sorted(p.name for p in per_seed.glob("*.parquet")) == ["seed0.parquet", "seed1.parquet"]
    # control: a release without them takes the job file
    export_traces(tmp_path / "runs", tmp_path / "fresh")
    assert (tmp_path / "fresh" / "b2" / "random" / "seeds0-1.parquet").exists()


def test_several_release_roots_restore_full_budget_and_extend_the_rest(tmp_path):
    """``extend_from`` as a list: a seed is found in the first root that holds it; a job whose
    seeds a root holds at the full budget restores from it, a shorter one is extended."""
    from boexplore.pipeline.release import (
        complete_seed_files,
        prefix_files,
        release_roots,
        restore_roots,
    )

    def release(root: str, seed: int, n: int) -> Path:
        path = tmp_path / root / "b2" / "random" / f"seed{seed}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"seed": [seed] * n, "y": np.zeros(n, np.float32)}).to_parquet(path)
        return path

    long0 = release("long", 0, 12)
    short0 = release("short", 0, 8)
    short1 = release("short", 1, 8)
    roots = ["long", "short"]
    roots = [tmp_path / r for r in roots]
    assert complete_seed_files(roots, "b2", "random", [0], 12) == [long0]
    assert complete_seed_files(roots[::-1], "b2", "random", [0], 12) is None  # first root wins
    assert complete_seed_files(roots, "b2", "random", [0, 1], 12) is None  # seed 1 is short
    assert prefix_files(roots, "b2", "random", [0, 1], 12) == sorted([long0, short1])
    assert prefix_files(roots, "b2", "random", [1], 6) == []  # longer than the budget: not a prefix
    assert short0.exists() and release_roots(str(roots[0])) == (roots[0],)
    rel = {"traces": "own", "extend_from": ["long", "short"]}
    assert restore_roots(rel) == (Path("own"), Path("long"), Path("short"))
    assert restore_roots({"traces": "own"}) == (Path("own"),)


def test_export_leaves_out_run_files_restored_from_an_extended_release(tmp_path):
    """A job restored from another release (same seeds, same length) is not copied again;
    one that ran BO past it is (control)."""
    from boexplore.pipeline.release import export_traces

    def trace(path: Path, seed: int, n: int) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"seed": [seed] * n, "y": np.arange(n, dtype=float)}).to_parquet(path)
        return path

    trace(tmp_path / "long" / "p" / "m" / "seed0.parquet", 0, 10)
    trace(tmp_path / "long" / "p" / "m" / "seed1.parquet", 1, 10)
    runs = tmp_path / "runs"
    trace(runs / "p" / "m" / "seed0.parquet", 0, 10)  # restored from the long release
    trace(runs / "p" / "m" / "seed1.parquet", 1, 14)  # extended past it
    out = export_traces(runs, tmp_path / "out", held_in=[tmp_path / "long"])
    assert [p.name for p in out] == ["seed1.parquet"]
    assert len(export_traces(runs, tmp_path / "all")) == 2  # without held_in: both


def test_bulk_restore_makes_what_the_rules_make_and_snakemake_skips_them(tmp_path):
    from boexplore.pipeline.bulk_restore import restore_release
    from boexplore.workflow_config import load_config

    trace, _ = _release_random_b2(tmp_path)
    configfile = _config(tmp_path, True)
    config = dict(load_config(configfile))
    config["release"] = {**config["release"], "traces": str(tmp_path / "released")}
    report = restore_release(config, tmp_path / "results")
    assert report.restored == ["b2/random/seeds0-1"] and report.scored == 1
    assert report.left_to_workflow == ["b2/sobol/seeds0-1"]  # not in the release: BO
    run_file = tmp_path / "results/rel/runs/b2/random/seeds0-1.parquet"
    np.testing.assert_allclose(pd.read_parquet(run_file)["x_0"], trace["x_0"], rtol=1e-6)
    assert (tmp_path / "results/rel/metrics/b2/random/seeds0-1.parquet").exists()
    again = restore_release(config, tmp_path / "results")
    assert again.kept == ["b2/random/seeds0-1"] and again.scored == 0  # nothing redone
    # a benchmark left by an earlier scoring of this job would make Snakemake redo it
    bench = tmp_path / "results/rel/benchmarks/score_run/b2/random/seeds0-1.tsv"
    bench.parent.mkdir(parents=True)
    bench.write_text("s\n1.0\n")
    os.utime(bench, (1.0, 1.0))
    metrics_file = tmp_path / "results/rel/metrics/b2/random/seeds0-1.parquet"
    os.utime(metrics_file, (2.0, 2.0))  # older than its run file: re-scored
    assert restore_release(config, tmp_path / "results").scored == 1
    assert bench.stat().st_mtime == metrics_file.stat().st_mtime
    assert bench.read_text() == "s\n1.0\n"  # measured times kept

    proc = run_snakemake(["-n", "--cores", "1", "--until", "score_run", "--configfile",
                          configfile], cwd=tmp_path, timeout=180)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "rule restore_run" not in out and "rule bo_run" in out  # only sobol is left
    assert "metrics/b2/random/seeds0-1.parquet" not in out  # scored already
    # control: without the bulk restore the workflow plans the restore
    run_file.unlink()
    proc = run_snakemake(["-n", "--cores", "1", "--until", "score_run", "--configfile",
                          configfile], cwd=tmp_path, timeout=180)  # fmt: skip
    assert "rule restore_run" in proc.stdout + proc.stderr


def test_verify_claims_rebuild_command_parses_and_plans_from_the_overlay(tmp_path):
    import subprocess

    from boexplore.pipeline.cli import claims_rebuild_command

    _release_random_b2(tmp_path)
    cmd = claims_rebuild_command(Path(_config(tmp_path, True)), "rel_verify", Path("released"), 1)
    cmd += ["-n", "-s", str(REPO / "Snakefile")]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=180)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "restore_run" in out and "paper1_analysis" in out  # the overlay stands in for BO


def _framed(ident: dict) -> pd.DataFrame:
    frame = pd.DataFrame({"seed": [0]})
    frame.attrs = {"boexplore": ident}
    return frame


def test_seeds_made_on_two_cpus_merge_and_keep_both_cpus() -> None:
    """A verify re-run seed (another CPU, another commit) joins the released seeds of its job;
    a different numerics profile still refuses to merge (the control)."""
    from boexplore.pipeline.release import merged_identity

    amd = {"engine": {"engine_version": 1}, "git_commit": "a",
           "numerics": {"profile": "portable", "cpu": "AMD EPYC"}}  # fmt: skip
    intel = {**amd, "git_commit": "b", "numerics": {"profile": "portable", "cpu": "Intel Xeon"}}
    merged = merged_identity([_framed(amd), _framed(intel)])["boexplore"]
    assert merged["numerics"]["cpus"] == ["AMD EPYC", "Intel Xeon"]
    assert merged["git_commits"] == ["a", "b"]
    other = {**amd, "numerics": {"profile": "unpinned", "cpu": "AMD EPYC"}}
    with pytest.raises(ValueError, match="disagree on their identity"):
        merged_identity([_framed(amd), _framed(other)])
