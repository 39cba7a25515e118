"""``boexplore compare``: scoring user traces against a small generated reference run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.cli import main
from boexplore.compare import load_reference, load_user_traces, place, score_points
from boexplore.compare.core import percentile
from boexplore.metrics.oe_baseline import UniformOEBaseline
from boexplore.metrics.scoring import metrics_table

D, T = 3, 24


def _uniform(rng: np.random.Generator) -> np.ndarray:
    return rng.random((T, D))


def _local(rng: np.random.Generator) -> np.ndarray:
    return np.clip(0.5 + 0.02 * rng.standard_normal((T, D)), 0, 1)


def _middle(rng: np.random.Generator) -> np.ndarray:
    return np.clip(0.5 + 0.15 * rng.standard_normal((T, D)), 0, 1)


GENERATORS = {"random": _uniform, "local": _local, "middle": _middle}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A results/<run> directory with tables/metrics.parquet for problem 'toy' (d=3)."""
    root = tmp_path_factory.mktemp("ref")
    rows = []
    for method, gen in GENERATORS.items():
        for seed in range(5):
            cols = metrics_table(gen(np.random.default_rng([seed, len(method)])))
            frame = pd.DataFrame(cols)
            frame[["problem", "dim", "method", "seed"]] = ["toy", D, method, seed]
            rows.append(frame)
    (root / "tables").mkdir()
    (root / "problems").mkdir()
    pd.concat(rows, ignore_index=True).to_parquet(root / "tables" / "metrics.parquet")
    (root / "problems" / "toy.json").write_text(json.dumps({"name": "toy_fn", "dim": D}))
    return root


BASE = UniformOEBaseline(n_rep=4, seed=0)


@pytest.mark.parametrize("kind", ["random", "local"])
def test_nearest_method_is_the_generating_one(run_dir: Path, kind: str) -> None:
    ref = load_reference(run_dir, "toy", D)
    rng = np.random.default_rng(99)
    user = [(f"u{i}", GENERATORS[kind](rng)) for i in range(3)]
    result = place(user, ref, BASE)
    assert result.n == T
    assert result.nearest(1) == [kind]
    pct = result.user["otsd_norm_pct"]
    # uniform points explore more than every local run, local points less than every uniform run
    assert (pct > 60).all() if kind == "random" else (pct < 40).all()
    assert set(result.methods["method"]) == set(GENERATORS)
    assert result.methods["distance"].is_monotonic_increasing


def test_user_scores_match_reference_scoring(run_dir: Path) -> None:
    ref = load_reference(run_dir, "toy", D)
    X = _uniform(np.random.default_rng([0, len("random")]))  # reference run random / seed 0
    s = score_points(X, T, BASE)
    result = place([("same", X)], ref, BASE)
    row = result.reference.query("method == 'random' and seed == 0").iloc[0]
    assert s["otsd_norm"] == pytest.approx(row["otsd_norm"])
    assert s["oe_rel"] == pytest.approx(row["oe_rel"])


def test_short_traces_are_compared_at_their_length(run_dir: Path) -> None:
    ref = load_reference(run_dir, "toy", D)
    X = np.random.default_rng(3).random((10, D))
    result = place([("short", X)], ref, BASE)
    assert result.n == 10
    assert any("before the reference budget" in n for n in result.notes)
    with pytest.raises(ValueError, match="must lie in"):
        place([("short", X)], ref, BASE, n=11)


def test_problem_resolution_and_errors(run_dir: Path, tmp_path: Path) -> None:
    assert load_reference(run_dir, "toy_fn", D).problem == "toy"  # by problem name
    with pytest.raises(ValueError, match="no reference runs"):
        load_reference(run_dir, "toy", D + 1)
    with pytest.raises(FileNotFoundError, match="finish a workflow run"):
        load_reference(tmp_path, "toy", D)
    ref = load_reference(run_dir, "toy", D)
    with pytest.raises(ValueError, match="d = \\[2\\]"):
        place([("wrong_d", np.random.default_rng(0).random((T, 2)))], ref, BASE)


def test_trace_files_split_by_seed_and_sorted(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    frames = []
    for seed in (0, 1):
        X = rng.random((6, D))
        f = pd.DataFrame(X, columns=[f"x_{i}" for i in range(D)])
        f["seed"], f["eval_index"], f["y"] = seed, np.arange(6), 5.0
        frames.append(f)
    table = pd.concat(frames).sample(frac=1.0, random_state=0)  # shuffled rows
    table.to_parquet(tmp_path / "mine.parquet")
    loaded = load_user_traces([tmp_path / "mine.parquet"])
    assert [lab for lab, _ in loaded] == ["mine[seed=0]", "mine[seed=1]"]
    for (_, X), f in zip(loaded, frames, strict=True):
        np.testing.assert_array_equal(X, f[[f"x_{i}" for i in range(D)]].to_numpy())
    np.save(tmp_path / "pts.npy", frames[0][["x_0", "x_1", "x_2"]].to_numpy() * 4 - 2)
    with pytest.raises(ValueError, match="unit cube"):
        load_user_traces([tmp_path / "pts.npy"])
    scaled = load_user_traces([tmp_path / "pts.npy"], bounds=np.array([[-2.0] * D, [2.0] * D]))
    np.testing.assert_allclose(scaled[0][1], frames[0][["x_0", "x_1", "x_2"]].to_numpy())


def test_cli_prints_placement_and_writes_figure(run_dir: Path, tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(5)
    paths = []
    for i in range(2):
        p = tmp_path / f"t{i}.csv"
        pd.DataFrame(_local(rng) * 10, columns=["a", "b", "c"]).to_csv(p, index=False)
        paths.append(str(p))
    fig = tmp_path / "cmp.png"
    argv = ["compare", *paths, "--problem", "toy", "--dim", str(D), "--reference", str(run_dir)]
    argv += ["--bounds", "0", "10", "--figure", str(fig), "--oe-reps", "4"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "nearest reference methods" in out
    nearest_block = out.split("nearest reference methods")[1].splitlines()
    assert nearest_block[2].split()[0] == "local"  # header line, column names, first method
    assert fig.stat().st_size > 5_000
    assert main([*argv[:-4], "--no-figure", "--dim", "7"]) == 2  # wrong d: clean error


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(-5, 5), min_size=1, max_size=30),
    st.floats(-6, 6),
    st.floats(0, 1),
)
def test_percentile_is_bounded_and_monotone(values: list[float], x: float, dx: float) -> None:
    v = np.array(values)
    lo, hi = percentile(v, x), percentile(v, x + dx)
    assert 0.0 <= lo <= hi <= 100.0
    assert percentile(v, max(values) + 1) == 100.0 and percentile(v, min(values) - 1) == 0.0


def test_taxonomy_layers_and_repeated_stems(run_dir: Path, tmp_path: Path) -> None:
    classes = pd.DataFrame(
        {
            "subset": ["all", "all", "low_d"],
            "metric": ["otsd_norm"] * 3,
            "class": [0, 1, 0],
            "members": ["random", "middle ≈ local", "local"],
            "layer": [0, 1, 0],
        }
    )
    classes.to_csv(run_dir / "tables" / "paper1_taxonomy_classes.csv", index=False)
    try:
        ref = load_reference(run_dir, "toy", D)
        result = place([("u", _uniform(np.random.default_rng(1)))], ref, BASE)
        layers = dict(zip(result.methods["method"], result.methods["layer"], strict=True))
        assert layers == {"random": 0, "middle": 1, "local": 1}
    finally:
        (run_dir / "tables" / "paper1_taxonomy_classes.csv").unlink()
    for method in ("a", "b"):
        (tmp_path / method).mkdir()
        np.save(tmp_path / method / "seed0.npy", np.random.default_rng(0).random((5, D)))
    loaded = load_user_traces([tmp_path / "a" / "seed0.npy", tmp_path / "b" / "seed0.npy"])
    assert [lab for lab, _ in loaded] == ["a/seed0", "b/seed0"]
