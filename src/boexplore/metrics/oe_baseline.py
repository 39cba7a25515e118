"""OE relative to uniform random points: ``oe_rel = oe_kl − E[oe_kl of uniform]``.

The textbook estimator without the N >= d cut-off (``oe_kl_all``, the same
estimator with ``min_points=1``) is used on both sides when the metrics table
has it, so runs with fewer evaluations than dimensions still get an ``oe_rel``.

The k-NN entropy estimator is biased upward in high dimension (≈ +5.6 at
d = 20, +78 at d = 180 for ~200 uniform points), so raw OE values cannot be
compared across problems. Subtracting the Monte-Carlo mean of the *same*
estimator on uniform points with the same (d, N) removes that bias: oe_rel ≈ 0
means "as spread as random search", negative means more concentrated.

Because a prefix of a uniform sample is itself a uniform sample, one sample of
size N_max per replicate gives the baseline for every N ≤ N_max at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas only for the table helpers: `boexplore metrics` runs without it
    import pandas as pd

PrefixEstimator = Callable[[np.ndarray], np.ndarray]


def default_prefix_estimator(X: np.ndarray) -> np.ndarray:
    """Per-prefix textbook OE (``oe_kl``) from ``boexplore.metrics``, length T.

    Accepts either a per-prefix array or a scalar-per-call implementation of
    ``observation_entropy``; entries where OE is undefined are NaN.
    """
    from boexplore.metrics import observation_entropy

    T = X.shape[0]
    res = np.asarray(observation_entropy(X, variant="kl", min_points=1), dtype=float)
    if res.ndim == 1 and res.size == T:
        return res
    if res.ndim == 0:
        out = np.full(T, np.nan)
        for n in range(2, T + 1):
            out[n - 1] = float(observation_entropy(X[:n], variant="kl"))
        return out
    raise ValueError(f"observation_entropy returned shape {res.shape} for {T} points")


class UniformOEBaseline:
    """Seeded Monte-Carlo mean OE of uniform points, cached per (d, N_max)."""

    def __init__(
        self, n_rep: int = 16, seed: int = 0, estimator: PrefixEstimator | None = None
    ) -> None:
        if n_rep < 1:
            raise ValueError(f"n_rep must be >= 1, got {n_rep}")
        self.n_rep = n_rep
        self.seed = seed
        self.estimator = estimator or default_prefix_estimator
        self._cache: dict[int, np.ndarray] = {}

    def curve(self, d: int, n_max: int) -> np.ndarray:
        """Mean uniform OE for N = 1..n_max (index N−1); NaN where undefined."""
        if d < 1 or n_max < 1:
            raise ValueError(f"need d >= 1 and n_max >= 1, got d={d}, n_max={n_max}")
        have = self._cache.get(d)
        if have is not None and have.size >= n_max:
            return have[:n_max]
        reps = np.empty((self.n_rep, n_max))
        for r in range(self.n_rep):
            # one stream per (seed, d, replicate): prefixes do not depend on n_max
            rng = np.random.default_rng([self.seed, d, r])
            reps[r] = self.estimator(rng.random((n_max, d)))
        with np.errstate(all="ignore"):
            finite = np.isfinite(reps)
            mean = np.where(
                finite.any(axis=0),
                np.nansum(np.where(finite, reps, 0.0), axis=0) / np.maximum(finite.sum(axis=0), 1),
                np.nan,
            )
        self._cache[d] = mean
        return mean

    def value(self, d: int, n: int) -> float:
        """Mean uniform OE at (d, N = n)."""
        return float(self.curve(d, n)[n - 1])

    def table(self) -> pd.DataFrame:
        """Long table (dim, n, oe_uniform) of everything computed so far."""
        import pandas as pd

        rows = [
            pd.DataFrame({"dim": d, "n": np.arange(1, c.size + 1), "oe_uniform": c})
            for d, c in sorted(self._cache.items())
        ]
        if not rows:
            return pd.DataFrame(columns=["dim", "n", "oe_uniform"])
        return pd.concat(rows, ignore_index=True)


def reference_prefix_estimator(X: np.ndarray) -> np.ndarray:
    """Per-prefix authors' OE (``oe_ref``), length T: NaN until N = d (their cut-off)."""
    from boexplore.metrics import observation_entropy

    return np.asarray(observation_entropy(X, variant="reference"), dtype=float)


def _centred(
    metrics: pd.DataFrame, source: str, baseline: UniformOEBaseline, base_col: str, out_col: str
) -> pd.DataFrame:
    for col in ("dim", "n", source):
        if col not in metrics.columns:
            raise ValueError(f"metrics table lacks column {col!r} needed for {out_col}")
    out = metrics.copy()
    base = np.full(len(out), np.nan)
    dims = out["dim"].to_numpy(dtype=int)
    ns = out["n"].to_numpy(dtype=int)
    for d in np.unique(dims):
        mask = dims == d
        curve = baseline.curve(int(d), int(ns[mask].max()))
        base[mask] = curve[ns[mask] - 1]
    out[base_col] = base
    out[out_col] = out[source].astype(float) - base
    return out


def add_oe_rel(metrics: pd.DataFrame, baseline: UniformOEBaseline) -> pd.DataFrame:
    """Copy of ``metrics`` with ``oe_uniform`` and ``oe_rel = OE − oe_uniform``.

    OE is ``oe_kl_all`` when present (no N >= d cut-off, matching the default
    baseline estimator), else ``oe_kl``.
    """
    source = "oe_kl_all" if "oe_kl_all" in metrics.columns else "oe_kl"
    return _centred(metrics, source, baseline, "oe_uniform", "oe_rel")


def add_oe_ref_rel(metrics: pd.DataFrame, baseline: UniformOEBaseline) -> pd.DataFrame:
    """Copy of ``metrics`` with ``oe_ref_uniform`` and ``oe_ref_rel = oe_ref − oe_ref_uniform``.

    ``baseline`` must use :func:`reference_prefix_estimator`. NaN at N <= d: the authors'
    function returns values for the prefixes of d .. T-1 points of a T-point trace, so a
    trace (or budget prefix) of N points has their OE only when N > d. Within a problem the
    differences are those of ``oe_ref`` itself.
    """
    out = _centred(metrics, "oe_ref", baseline, "oe_ref_uniform", "oe_ref_rel")
    out.loc[out["n"].to_numpy() <= out["dim"].to_numpy(), "oe_ref_rel"] = np.nan
    return out
