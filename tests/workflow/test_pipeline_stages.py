"""Pipeline stage functions without Snakemake: scoring, aggregation, bounds, provenance."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from boexplore.pipeline.bounds_stage import bound_checks, check_bounds
from boexplore.pipeline.metrics_stage import (
    aggregate_metrics,
    score_run,
    summarize_runs,
    write_provenance,
)


def _trace(problem: str, method: str, seed: int, n: int = 12, d: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = -np.sum((X - 0.5) ** 2, axis=1)
    frame = pd.DataFrame(X, columns=[f"x_{i}" for i in range(d)])
    frame.insert(0, "problem", problem)
    frame.insert(1, "dim", d)
    frame.insert(2, "method", method)
    frame.insert(3, "method_spec", method)
    frame.insert(4, "seed", seed)
    frame.insert(5, "eval_index", np.arange(n))
    frame.insert(6, "iteration", np.maximum(0, np.arange(n) - 3))
    frame.insert(7, "batch_index", 0)
    frame.insert(8, "is_initial", np.arange(n) < 4)
    frame["y"] = y
    frame["best_so_far"] = np.maximum.accumulate(y)
    frame["regret"] = 0.0 - frame["best_so_far"]
    frame["fit_seconds"] = 0.1
    frame["acq_seconds"] = 0.2
    return frame


@pytest.fixture
def scored(tmp_path):
    runs, metrics = [], []
    for method in ("random", "ucb_high"):
        for seed in (0, 1):
            run = tmp_path / f"runs/p/{method}/seed{seed}.parquet"
            run.parent.mkdir(parents=True, exist_ok=True)
            _trace("p", method, seed).to_parquet(run)
            out = tmp_path / f"metrics/p/{method}/seed{seed}.parquet"
            score_run(run, out)
            runs.append(run)
            metrics.append(out)
    return tmp_path, runs, metrics


def test_aggregate_attaches_metadata(scored) -> None:
    root, _, metrics = scored
    table = aggregate_metrics(
        metrics,
        {"random": "random", "ucb_high": "ucb(beta=16)+q2"},
        {"p": {"name": "ackley", "dim": 3}},
        root / "tables/metrics.parquet",
    )
    assert len(table) == 4 * 12
    row = table[table.method == "ucb_high"].iloc[0]
    assert row["base_method"] == "ucb" and row["q"] == 2 and not row["trust_region"]
    assert set(table["problem_name"]) == {"ackley"}


def test_bounds_hold_on_real_scores(scored) -> None:
    root, _, metrics = scored
    aggregate_metrics(
        metrics,
        {"random": "random", "ucb_high": "ucb"},
        {"p": {"name": "ackley"}},
        root / "m.parquet",
    )
    summary = bound_checks(root / "m.parquet", root / "b.parquet", root / "b.csv")
    assert (summary["frac_inside_both_min"] == 1.0).all()
    assert (summary["median_ratio_to_lb"] >= 1.0).all()


def test_bound_violation_is_detected() -> None:
    metrics = pd.DataFrame(
        {
            "problem": "p",
            "dim": 2,
            "method": "m",
            "seed": 0,
            "n": [1, 2, 3],
            "otsd": [0.0, 1.0, 5.0],
            "otsd_lb": [0.0, 0.5, 6.0],
            "psi": [1.0, 9.0, 9.0],
            "otsd_norm": [0.0, 0.1, 0.5],
        }
    )
    per_run = check_bounds(metrics)
    assert per_run["frac_inside_lower"].iloc[0] == pytest.approx(0.5)
    assert per_run["frac_inside_both"].iloc[0] == pytest.approx(0.5)


def test_summary_and_provenance(scored, tmp_path) -> None:
    root, runs, metrics = scored
    summary = summarize_runs(runs, root / "summary.csv")
    assert len(summary) == 4
    assert (summary["n_iterations"] == 8).all()
    spec = root / "p.json"
    spec.write_text("{}")
    write_provenance(runs, metrics, [spec], root / "prov.json")
    prov = json.loads((root / "prov.json").read_text())
    assert len(prov["runs"]) == 4 and len(prov["runs"][0]["trace_sha256"]) == 64


def test_multi_seed_trace_file_is_scored_per_seed(tmp_path) -> None:
    both = pd.concat([_trace("p", "m", 0), _trace("p", "m", 1)], ignore_index=True)
    both.to_parquet(tmp_path / "chunk.parquet")
    score_run(tmp_path / "chunk.parquet", tmp_path / "scored.parquet")
    scored = pd.read_parquet(tmp_path / "scored.parquet")
    assert sorted(scored["seed"].unique()) == [0, 1]
    assert (scored.groupby("seed")["n"].max() == 12).all()
    assert (scored.groupby("seed")["otsd"].min() == 0).all()  # each seed's tour restarts
    summary = summarize_runs([tmp_path / "chunk.parquet"], tmp_path / "s.csv")
    assert sorted(summary["seed"]) == [0, 1]
