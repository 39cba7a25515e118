"""Weighted-Lasso hyperparameter tuning in the style of LassoBench (Sehic et al. 2022).

One penalty per feature (d penalties for d features); the objective is the
K-fold cross-validated validation MSE of the weighted Lasso fitted with those
penalties, negated so that it is maximised.

Penalty map (as LassoBench): unit-cube coordinate ``u_j`` -> log-penalty
``log lam_j = log(alpha_max / alpha_ratio) + u_j * log(alpha_ratio)``, i.e.
``lam_j`` is log-uniform in ``[alpha_max / alpha_ratio, alpha_max]`` with
``alpha_max = ||X_c' y_c||_inf / n`` (the smallest uniform penalty giving all-zero
coefficients). ``bounds`` holds these log-penalty boxes. LassoBench uses
``alpha_ratio = 1e2`` for synthetic and ``1e5`` for real data; so do we.

Differences from LassoBench (documented on purpose): we fit an intercept (by
centring on each training fold), so maximal penalties predict the
training-fold mean; all samples enter the cross-validation (no extra 15 %
test split); folds come from the instance seed.

- ``lasso_synthetic``: data generated from the instance seed: features with
  Toeplitz correlation ``corr^|i-j|`` (AR(1) construction), a sparse true
  coefficient vector (``n_nonzeros`` evenly spaced entries of alternating sign,
  as LassoBench's synthetic benchmarks), noise scaled to signal-to-noise ratio
  ``snr``. The loss is divided by the oracle loss (MSE of the true
  coefficients on the data), as LassoBench does for its synthetic benchmarks.
  ``write_data`` stores the data (npz); a loaded instance reads that file.
- ``lasso_dna``: the LIBSVM ``dna`` data (2000 x 180 binary features, labels
  1/2/3), read from the user-supplied ``data_path``; like LassoBench we regress
  on the class label itself. Never downloaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from boexplore.problems.base import Problem, ProblemInfo
from boexplore.problems.realworld.libsvm import load_libsvm
from boexplore.problems.realworld.weighted_lasso import (
    FoldGrams,
    cv_mse,
    fold_grams,
    kfold_assignment,
)
from boexplore.problems.registry import register

DNA_N_FEATURES = 180
DATA_KEY = "data"


class WeightedLassoProblem(Problem):
    """Negated K-fold CV loss of a weighted Lasso as a function of the d log-penalties."""

    negated = True

    def __init__(
        self,
        name: str,
        X: np.ndarray,
        y: np.ndarray,
        folds: np.ndarray,
        instance_seed: int,
        alpha_ratio: float,
        loss_scale: float,
        options: dict[str, Any],
    ) -> None:
        self.name = name
        if not alpha_ratio > 1:
            raise ValueError(f"{name}: alpha_ratio must be > 1, got {alpha_ratio}")
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.folds = np.asarray(folds, dtype=np.int64)
        Xc = self.X - self.X.mean(axis=0)
        yc = self.y - self.y.mean()
        self.alpha_max = float(np.max(np.abs(Xc.T @ yc)) / len(yc))
        if not self.alpha_max > 0:
            raise ValueError(f"{name}: data give alpha_max = 0 (constant target or features)")
        hi = np.log(self.alpha_max)
        lo = hi - np.log(alpha_ratio)
        d = self.X.shape[1]
        super().__init__(d, np.array([[lo] * d, [hi] * d]), instance_seed=instance_seed)
        self.alpha_ratio = float(alpha_ratio)
        self.loss_scale = float(loss_scale)
        self._options = options
        self._grams: FoldGrams = fold_grams(self.X, self.y, self.folds)

    def penalties(self, X_unit: np.ndarray) -> np.ndarray:
        """Per-feature penalties (n, d) for unit-cube points."""
        return np.exp(self.to_original(self.validate_input(X_unit)))

    def cv_loss(self, X_unit: np.ndarray) -> np.ndarray:
        """Un-negated, scaled cross-validation MSE (n,) (what LassoBench reports).

        Points are solved one at a time: a joint batch would iterate every
        point as long as the slowest one needs (measured 2x slower).
        """
        lam = self.penalties(X_unit)
        return np.array([cv_mse(self._grams, row[None])[0] for row in lam]) / self.loss_scale

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        return -self.cv_loss(X)

    def _spec_options(self) -> dict[str, Any]:
        return dict(self._options)


# -- synthetic -------------------------------------------------------------
def _correlated_design(rng: np.random.Generator, n: int, d: int, corr: float) -> np.ndarray:
    """Rows ~ N(0, Sigma) with Sigma_ij = corr^|i-j| via the AR(1) recursion."""
    eps = rng.standard_normal((n, d))
    X = np.empty((n, d))
    X[:, 0] = eps[:, 0]
    scale = np.sqrt(1.0 - corr**2)
    for j in range(1, d):
        X[:, j] = corr * X[:, j - 1] + scale * eps[:, j]
    return X


def generate_synthetic_lasso_data(
    dim: int, seed: int, n_samples: int, corr: float, snr: float, n_nonzeros: int
) -> dict[str, np.ndarray]:
    """Seeded LassoBench-style regression data: X, y, the true coefficients ``w_true``."""
    if not 0 <= corr < 1:
        raise ValueError(f"lasso_synthetic: corr must be in [0, 1), got {corr}")
    if not snr > 0:
        raise ValueError(f"lasso_synthetic: snr must be > 0, got {snr}")
    if not 1 <= n_nonzeros <= dim:
        raise ValueError(f"lasso_synthetic: need 1 <= n_nonzeros <= dim, got {n_nonzeros}")
    rng = np.random.default_rng([seed, 180])
    X = _correlated_design(rng, n_samples, dim, corr)
    w_true = np.zeros(dim)
    support = np.arange(n_nonzeros) * (dim // n_nonzeros)
    w_true[support] = (-1.0) ** np.arange(n_nonzeros)
    signal = X @ w_true
    noise = rng.standard_normal(n_samples)
    noise *= np.linalg.norm(signal) / (snr * np.linalg.norm(noise))
    return {"X": X, "y": signal + noise, "w_true": w_true}


def make_lasso_synthetic(
    dim: int,
    instance_seed: int = 0,
    n_samples: int | None = None,
    corr: float = 0.6,
    snr: float = 10.0,
    n_nonzeros: int | None = None,
    n_splits: int = 5,
    alpha_ratio: float = 1e2,
    data_files: dict[str, str] | None = None,
) -> WeightedLassoProblem:
    """Factory for ``lasso_synthetic``; reads ``data_files['data']`` when given."""
    n_samples = int(n_samples) if n_samples is not None else max(dim // 2, 50)
    n_nonzeros = int(n_nonzeros) if n_nonzeros is not None else max(dim // 20, 1)
    if n_samples < 2 * n_splits:
        raise ValueError(f"lasso_synthetic: n_samples={n_samples} too small for {n_splits} folds")
    options = {
        "n_samples": n_samples,
        "corr": float(corr),
        "snr": float(snr),
        "n_nonzeros": n_nonzeros,
        "n_splits": int(n_splits),
        "alpha_ratio": float(alpha_ratio),
    }
    if data_files and DATA_KEY in data_files:
        with np.load(data_files[DATA_KEY]) as npz:
            data = {key: npz[key] for key in ("X", "y", "w_true")}
        if data["X"].shape != (n_samples, dim):
            raise ValueError(
                f"lasso_synthetic: data file {data_files[DATA_KEY]} has X of shape "
                f"{data['X'].shape}, expected {(n_samples, dim)}"
            )
    else:
        data = generate_synthetic_lasso_data(dim, instance_seed, n_samples, corr, snr, n_nonzeros)
    folds = kfold_assignment(n_samples, int(n_splits), instance_seed)
    oracle = float(np.mean((data["y"] - data["X"] @ data["w_true"]) ** 2))
    problem = SyntheticLassoProblem(
        "lasso_synthetic", data["X"], data["y"], folds, instance_seed, alpha_ratio, oracle, options
    )
    problem.w_true = data["w_true"]
    return problem


class SyntheticLassoProblem(WeightedLassoProblem):
    """``lasso_synthetic``: stores its generated data with ``write_data``."""

    w_true: np.ndarray

    def write_data(self, directory: Path) -> dict[str, str]:
        name = f"lasso_synthetic_d{self.dim}_seed{self.instance_seed}.npz"
        from boexplore.io import atomic_write

        atomic_write({"X": self.X, "y": self.y, "w_true": self.w_true}, Path(directory) / name)
        return {DATA_KEY: name}


# -- LIBSVM dna --------------------------------------------------------------
def make_lasso_dna(
    dim: int = DNA_N_FEATURES,
    instance_seed: int = 0,
    data_path: str | None = None,
    n_splits: int = 5,
    alpha_ratio: float = 1e5,
    data_files: dict[str, str] | None = None,
) -> WeightedLassoProblem:
    """Factory for ``lasso_dna``: needs ``data_path`` to the LIBSVM ``dna`` (or ``dna.scale``) file."""
    if dim != DNA_N_FEATURES:
        raise ValueError(f"lasso_dna: dim must be {DNA_N_FEATURES}, got {dim}")
    if not data_path:
        raise ValueError(
            "lasso_dna: option data_path is required: the path to the LIBSVM 'dna' file "
            "(e.g. dna.scale from the LIBSVM multi-class data sets page); it is never downloaded"
        )
    path = Path(data_path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(
            f"lasso_dna: data file {path} does not exist; download the LIBSVM 'dna' data "
            "yourself and set data_path (or use lasso_synthetic)"
        )
    X, y = load_libsvm(path, n_features=DNA_N_FEATURES)
    folds = kfold_assignment(X.shape[0], int(n_splits), instance_seed)
    options = {
        "data_path": str(path.resolve()),
        "n_splits": int(n_splits),
        "alpha_ratio": float(alpha_ratio),
    }
    return WeightedLassoProblem("lasso_dna", X, y, folds, instance_seed, alpha_ratio, 1.0, options)


register(
    ProblemInfo(
        name="lasso_synthetic",
        dims="any >= 2 (default 180)",
        source=(
            "LassoBench-style weighted Lasso HPO (Sehic et al. 2022) on seeded synthetic data "
            "(Toeplitz corr 0.6, d/20 nonzeros, SNR 10, n = max(d//2, 50) samples as LassoBench, 5-fold CV); "
            "one log-penalty per feature in [log(alpha_max/100), log(alpha_max)]; "
            "value = -(CV MSE / oracle MSE); own numpy FISTA + active-set solver"
        ),
        kind="real-world",
        default_dim=180,
        min_dim=2,
        has_optimum=False,
        extra={"negated": True, "data": "generated (npz via write_data)"},
    ),
    make_lasso_synthetic,
)

register(
    ProblemInfo(
        name="lasso_dna",
        dims="180",
        source=(
            "LassoBench 'dna' task (Sehic et al. 2022): weighted Lasso regression on the "
            "LIBSVM dna labels (1/2/3), 2000 x 180 binary features, 5-fold CV MSE, "
            "log-penalties in [log(alpha_max/1e5), log(alpha_max)]; needs option data_path "
            "(user-provided LIBSVM file, never downloaded)"
        ),
        kind="real-world",
        default_dim=DNA_N_FEATURES,
        min_dim=DNA_N_FEATURES,
        max_dim=DNA_N_FEATURES,
        has_optimum=False,
        extra={"negated": True, "data": "user file via option data_path"},
    ),
    make_lasso_dna,
)
