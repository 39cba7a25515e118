"""Lasso problems: solver correctness, penalty map, determinism, spec round-trip, LIBSVM loader."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.problems import get_problem, load_instance, problem_info, save_instance
from boexplore.problems.realworld.lasso import generate_synthetic_lasso_data
from boexplore.problems.realworld.libsvm import load_libsvm
from boexplore.problems.realworld.weighted_lasso import (
    fold_grams,
    kfold_assignment,
    solve_weighted_lasso,
)

DNA = Path(__file__).resolve().parents[3] / "shared" / "data" / "dna.scale"


@pytest.fixture(scope="module")
def small():
    return get_problem("lasso_synthetic", dim=20, instance_seed=3)


def _kkt_residual(G, c, lam, b):
    g = G @ b - c
    on = b != 0
    return np.max(np.where(on, np.abs(g + lam * np.sign(b)), np.maximum(np.abs(g) - lam, 0.0)))


def test_solver_satisfies_kkt_conditions():
    data = generate_synthetic_lasso_data(30, 1, 40, 0.6, 10.0, 3)
    folds = kfold_assignment(40, 4, 0)
    grams = fold_grams(data["X"], data["y"], folds)
    lam = np.exp(np.random.default_rng(0).uniform(np.log(1e-3), 0.0, (3, 30)))
    coef = solve_weighted_lasso(grams, lam, tol=1e-9)
    assert coef.shape == (3, 4, 30)
    for p in range(3):
        for f in range(4):
            res = _kkt_residual(grams.gram[f], grams.corr[f], lam[p], coef[p, f])
            assert res < 1e-9 * np.abs(grams.corr).max()


def test_solver_matches_reparametrised_standard_lasso():
    sklearn_lm = pytest.importorskip("sklearn.linear_model")
    data = generate_synthetic_lasso_data(15, 2, 30, 0.5, 5.0, 2)
    folds = kfold_assignment(30, 3, 1)
    grams = fold_grams(data["X"], data["y"], folds)
    lam = np.exp(np.random.default_rng(1).uniform(-5, -1, (1, 15)))
    coef = solve_weighted_lasso(grams, lam, tol=1e-10)
    train = folds != 0
    # weighted Lasso with weights w == standard Lasso on columns X_j / w_j
    ref = sklearn_lm.Lasso(alpha=1.0, tol=1e-12, max_iter=100_000)
    ref.fit(data["X"][train] / lam[0], data["y"][train])
    np.testing.assert_allclose(ref.coef_ / lam[0], coef[0, 0], atol=1e-8)


def test_kfold_assignment_is_balanced_and_seeded():
    a = kfold_assignment(23, 5, 7)
    assert np.array_equal(a, kfold_assignment(23, 5, 7))
    assert sorted(np.bincount(a)) == [4, 4, 5, 5, 5]
    with pytest.raises(ValueError):
        kfold_assignment(3, 5, 0)


def test_info_and_defaults():
    info = problem_info("lasso_synthetic")
    assert info.kind == "real-world" and info.default_dim == 180
    p = get_problem("lasso_synthetic")
    assert p.dim == 180 and p.negated and p.optimum_value is None
    assert p.X.shape == (90, 180) and np.count_nonzero(p.w_true) == 9


def test_penalty_map_is_log_uniform_up_to_alpha_max(small):
    lo, hi = small.bounds
    np.testing.assert_allclose(hi, np.log(small.alpha_max))
    np.testing.assert_allclose(hi - lo, np.log(100.0))
    pen = small.penalties(np.array([[0.0] * 10 + [1.0] * 10, [0.5] * 20]))
    np.testing.assert_allclose(pen[0, :10], small.alpha_max / 100)
    np.testing.assert_allclose(pen[0, 10:], small.alpha_max)
    np.testing.assert_allclose(pen[1], small.alpha_max / 10)


def test_huge_penalties_predict_the_training_mean(small):
    """At u = 1 every penalty equals alpha_max of the full data; a larger one surely zeroes b."""
    lam = np.full((1, small.dim), 1e6 * small.alpha_max)
    from boexplore.problems.realworld.weighted_lasso import cv_mse

    expected = np.mean(
        [
            np.mean((small.y[small.folds == k] - small.y[small.folds != k].mean()) ** 2)
            for k in range(5)
        ]
    )
    np.testing.assert_allclose(cv_mse(small._grams, lam), [expected], rtol=1e-12)


def test_values_are_deterministic_and_batch_consistent(small, unit_points):
    X = unit_points(20, 6, seed=4)
    y = small.evaluate(X)
    assert y.dtype == np.float64 and y.shape == (6,)
    assert np.array_equal(y, small.evaluate(X))
    single = np.array([small.evaluate(x)[0] for x in X])
    np.testing.assert_allclose(single, y, rtol=1e-9)
    again = get_problem("lasso_synthetic", dim=20, instance_seed=3)
    assert np.array_equal(again.evaluate(X), y)
    other = get_problem("lasso_synthetic", dim=20, instance_seed=4)
    assert not np.allclose(other.evaluate(X), y)


def test_sensible_penalties_beat_extremes():
    """Small penalties on the true support and large elsewhere beat a uniform extreme."""
    p = get_problem("lasso_synthetic", dim=40, instance_seed=0, n_samples=80)
    oracle_like = np.where(p.w_true != 0, 0.0, 1.0)[None, :]
    all_large = np.ones((1, 40))
    all_small = np.zeros((1, 40))
    v = p.evaluate(np.vstack([oracle_like, all_large, all_small]))
    assert v[0] > v[1] and v[0] > v[2]
    assert v[0] > -2.0  # CV loss within 2x of the oracle noise level


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**16), st.floats(0.0, 1.0))
def test_values_are_finite_and_negative(seed, level):
    p = get_problem("lasso_synthetic", dim=8, instance_seed=seed % 5)
    X = np.random.default_rng(seed).random((2, 8)) * level
    v = p.evaluate(X)
    assert np.all(np.isfinite(v)) and np.all(v < 0)


def test_bad_inputs_raise_named_errors(small):
    for bad in (np.zeros((1, 19)), np.full((1, 20), np.nan), np.full((1, 20), 1.5)):
        with pytest.raises(ValueError, match="lasso_synthetic"):
            small.evaluate(bad)
    with pytest.raises(ValueError, match="lasso_synthetic"):
        get_problem("lasso_synthetic", dim=10, corr=1.0)
    with pytest.raises(ValueError, match="lasso_synthetic"):
        get_problem("lasso_synthetic", dim=10, n_samples=4)


def test_write_data_and_spec_round_trip(tmp_path, small, unit_points):
    path = save_instance(small, tmp_path / "lasso.json")
    spec = json.loads(path.read_text())
    assert spec["negated"] is True and "data" in spec["data_files"]
    data_file = path.parent / spec["data_files"]["data"]
    assert data_file.is_file()
    loaded = load_instance(path)
    X = unit_points(20, 4, seed=9)
    assert np.array_equal(loaded.evaluate(X), small.evaluate(X))
    # the loaded instance really reads the file: corrupting it changes the values
    with np.load(data_file) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["y"] = arrays["y"] + 1.0 * np.arange(len(arrays["y"]))
    np.savez(data_file, **arrays)
    assert not np.allclose(load_instance(path).evaluate(X), small.evaluate(X))


def _write_libsvm(path: Path, X: np.ndarray, y: np.ndarray) -> None:
    lines = []
    for row, label in zip(X, y, strict=True):
        feats = " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row) if v != 0)
        lines.append(f"{label:g} {feats}".rstrip())
    path.write_text("# generated\n" + "\n".join(lines) + "\n\n")


def test_libsvm_loader_reads_generated_file(tmp_path):
    rng = np.random.default_rng(0)
    X = (rng.random((12, 7)) < 0.4).astype(float)
    X[3] = 0.0  # an all-zero row
    y = rng.integers(1, 4, 12).astype(float)
    _write_libsvm(tmp_path / "tiny.libsvm", X, y)
    X2, y2 = load_libsvm(tmp_path / "tiny.libsvm", n_features=7)
    assert np.array_equal(X2, X) and np.array_equal(y2, y)
    with pytest.raises(ValueError, match="exceeds"):
        load_libsvm(tmp_path / "tiny.libsvm", n_features=3)
    (tmp_path / "bad.libsvm").write_text("1 3:1 x\n")
    with pytest.raises(ValueError, match="bad.libsvm:1"):
        load_libsvm(tmp_path / "bad.libsvm")
    with pytest.raises(FileNotFoundError):
        load_libsvm(tmp_path / "missing.libsvm")


def test_lasso_dna_on_generated_file(tmp_path):
    rng = np.random.default_rng(1)
    X = (rng.random((400, 180)) < 0.25).astype(float)
    y = 1.0 + (X[:, 5] + X[:, 90] > 0).astype(float) + X[:, 7]
    _write_libsvm(tmp_path / "dna_tiny", X, y)
    p = get_problem("lasso_dna", data_path=str(tmp_path / "dna_tiny"))
    assert p.dim == 180 and p.negated
    np.testing.assert_allclose(p.bounds[1] - p.bounds[0], np.log(1e5))
    v = p.evaluate(np.full((2, 180), [[0.3], [1.0]]))
    assert np.all(np.isfinite(v)) and v[0] > v[1]  # informative features beat the mean
    path = save_instance(p, tmp_path / "dna.json")
    np.testing.assert_allclose(
        load_instance(path).evaluate(np.full((1, 180), 0.3)), v[:1], rtol=1e-9
    )


def test_lasso_dna_missing_data_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="data_path"):
        get_problem("lasso_dna")
    with pytest.raises(FileNotFoundError, match="lasso_dna"):
        get_problem("lasso_dna", data_path=str(tmp_path / "nope"))
    with pytest.raises(ValueError):
        get_problem("lasso_dna", dim=60, data_path=str(tmp_path / "nope"))


@pytest.mark.skipif(not DNA.is_file(), reason="shared dna.scale not available")
def test_lasso_dna_real_file():
    p = get_problem("lasso_dna", data_path=str(DNA))
    assert p.X.shape == (2000, 180) and set(np.unique(p.y)) == {1.0, 2.0, 3.0}
    assert set(np.unique(p.X)) <= {0.0, 1.0}
    v = p.evaluate(np.full((2, 180), [[0.5], [1.0]]))
    # the label variance is the loss of predicting the mean; tuned penalties must do better
    assert v[1] == pytest.approx(-np.var(p.y), rel=0.02)
    assert v[0] > v[1]
