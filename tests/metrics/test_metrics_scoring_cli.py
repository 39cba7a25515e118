"""score_trace columns and values; the ``boexplore metrics`` command on csv / npy / parquet; bench."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from boexplore.bench.metrics import bench_metrics
from boexplore.cli import main
from boexplore.metrics import (
    SCORE_COLUMNS,
    observation_entropy,
    otsd,
    otsd_normalized,
    score_trace,
    tour_lower_bounds,
)


def make_trace(T: int = 30, d: int = 3, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.random((T, d))
    y = rng.random(T)
    frame = pd.DataFrame(X, columns=[f"x_{i}" for i in range(d)])
    frame.insert(0, "problem", "toy")
    frame.insert(1, "dim", d)
    frame.insert(2, "method", "rs")
    frame.insert(3, "method_spec", "random")
    frame.insert(4, "seed", seed)
    frame.insert(5, "eval_index", np.arange(T))
    frame.insert(6, "iteration", np.r_[np.zeros(5, int), np.arange(1, T - 4)])
    frame["y"] = y
    frame["best_so_far"] = np.maximum.accumulate(y)
    frame["regret"] = 1.0 - frame["best_so_far"]
    return frame


def test_score_trace_columns_and_values() -> None:
    trace = make_trace()
    X = trace[["x_0", "x_1", "x_2"]].to_numpy()
    shuffled = trace.sample(frac=1.0, random_state=1)[list(reversed(trace.columns))]
    scored = score_trace(shuffled)  # rows are re-ordered by eval_index
    assert tuple(scored.columns) == SCORE_COLUMNS
    assert scored["n"].tolist() == list(range(1, 31))
    np.testing.assert_allclose(scored["otsd"], otsd(X))
    np.testing.assert_allclose(scored["otsd_norm"], otsd_normalized(X))
    np.testing.assert_allclose(scored["oe_kl"], observation_entropy(X), equal_nan=True)
    np.testing.assert_allclose(
        scored["oe_ref"], observation_entropy(X, "reference"), equal_nan=True
    )
    lb = tour_lower_bounds(X)
    for key in ("mst", "diam", "nn"):
        np.testing.assert_allclose(scored[f"otsd_lb_{key}"], lb[key])
    np.testing.assert_allclose(scored["otsd_lb"], lb["lb"])
    np.testing.assert_allclose(scored["regret"], trace["regret"])
    assert scored["iteration"].tolist() == trace["iteration"].tolist()
    assert (scored["problem"] == "toy").all() and (scored["dim"] == 3).all()


def test_score_trace_bad_input() -> None:
    trace = make_trace()
    with pytest.raises(ValueError, match="missing columns"):
        score_trace(trace.drop(columns=["eval_index"]))
    with pytest.raises(ValueError, match="x_0"):
        score_trace(trace.drop(columns=["x_0", "x_1", "x_2"]))
    with pytest.raises(ValueError, match="without gaps"):
        score_trace(trace.drop(columns=["x_1"]))
    with pytest.raises(ValueError, match="dim column"):
        score_trace(trace.assign(dim=4))
    with pytest.raises(ValueError, match="T = 0"):
        score_trace(trace.iloc[:0])
    bad = trace.copy()
    bad.loc[3, "x_1"] = 2.0
    with pytest.raises(ValueError, match="unit cube"):
        score_trace(bad)
    no_regret = score_trace(trace.drop(columns=["regret"]))
    assert no_regret["regret"].isna().all()


@pytest.mark.parametrize("fmt", ["csv", "npy", "parquet"])
def test_cli_formats(tmp_path, fmt: str, capsys) -> None:
    trace = make_trace(T=20, d=2)
    X = trace[["x_0", "x_1"]].to_numpy()
    path = tmp_path / f"points.{fmt}"
    if fmt == "npy":
        np.save(path, X)
    elif fmt == "csv":
        trace.to_csv(path, index=False)  # extra numeric columns (y, seed, ...) are ignored
    else:
        trace.to_parquet(path)
    out = tmp_path / "out.csv"
    assert main(["metrics", str(path), "-o", str(out)]) == 0
    table = pd.read_csv(out)
    np.testing.assert_allclose(table["otsd"], otsd(X))
    np.testing.assert_allclose(table["otsd_norm"], otsd_normalized(X))
    np.testing.assert_allclose(table["oe_kl"], observation_entropy(X), equal_nan=True)
    np.testing.assert_allclose(table["oe_ref"], observation_entropy(X, "reference"), equal_nan=True)
    assert main(["metrics", str(path)]) == 0  # prints to stdout
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(printed["otsd"], table["otsd"])


def test_cli_columns_bounds_and_errors(tmp_path, capsys) -> None:
    rng = np.random.default_rng(1)
    raw = rng.random((15, 2)) * 10 - 5
    frame = pd.DataFrame({"a": raw[:, 0], "b": raw[:, 1], "label": ["z"] * 15})
    path = tmp_path / "pts.csv"
    frame.to_csv(path, index=False)
    expected = otsd((raw + 5) / 10)
    out = tmp_path / "o.csv"
    assert main(["metrics", str(path), "-o", str(out), "--bounds", "-5", "5"]) == 0
    np.testing.assert_allclose(pd.read_csv(out)["otsd"], expected)  # all numeric columns: a, b
    assert (
        main(
            [
                "metrics",
                str(path),
                "-o",
                str(out),
                "--x-columns",
                "a",
                "b",
                "--bounds",
                "-5",
                "-5",
                "5",
                "5",
            ]
        )
        == 0
    )
    np.testing.assert_allclose(pd.read_csv(out)["otsd"], expected)
    capsys.readouterr()
    assert main(["metrics", str(path)]) == 2  # outside the unit cube without --bounds
    assert "unit cube" in capsys.readouterr().err
    assert main(["metrics", str(path), "--x-columns", "label"]) == 2
    assert "not numeric" in capsys.readouterr().err
    assert main(["metrics", str(path), "--x-columns", "nope"]) == 2
    assert main(["metrics", str(path), "--bounds", "0", "1", "2"]) == 2
    assert main(["metrics", str(tmp_path / "missing.csv")]) == 2
    (tmp_path / "p.txt").write_text("1 2\n")
    assert main(["metrics", str(tmp_path / "p.txt")]) == 2
    assert "unsupported" in capsys.readouterr().err


def test_bench_runs_on_tiny_grid(capsys) -> None:
    rows = bench_metrics([50], [2, 12], repeat=1, with_bounds=True, with_tracker=True)
    assert [(r["T"], r["d"]) for r in rows] == [(50, 2), (50, 12)]
    assert all(
        r["otsd_s"] > 0 and r["oe_s"] > 0 and r["bounds_s"] > 0 and r["tracker_update_s"] > 0
        for r in rows
    )
    assert "T=50" in capsys.readouterr().out
