"""``oe_kl_all``: the textbook OE without the N >= d cut-off, used for oe_rel in high d."""

from __future__ import annotations

import numpy as np
import pandas as pd

from boexplore.metrics import observation_entropy, score_trace
from boexplore.metrics.oe_baseline import UniformOEBaseline, add_oe_rel


def _trace(X: np.ndarray) -> pd.DataFrame:
    T, d = X.shape
    frame = pd.DataFrame(X, columns=[f"x_{i}" for i in range(d)])
    frame["problem"], frame["dim"], frame["method"], frame["seed"] = "p", d, "m", 0
    frame["eval_index"], frame["iteration"] = np.arange(T), np.arange(T)
    return frame


def test_oe_kl_all_defined_below_d_and_matches_min_points_one() -> None:
    X = np.random.default_rng(3).random((12, 30))
    scored = score_trace(_trace(X))
    assert scored["oe_kl"].isna().all()  # N < d everywhere
    expected = observation_entropy(X, min_points=1)
    np.testing.assert_allclose(scored["oe_kl_all"], expected, equal_nan=True)
    assert np.isfinite(scored["oe_kl_all"].iloc[2:]).all()


def test_oe_rel_of_uniform_points_is_near_zero_in_high_d() -> None:
    rng = np.random.default_rng(7)
    rows = [score_trace(_trace(rng.random((40, 100)))).assign(seed=s) for s in range(6)]
    rel = add_oe_rel(pd.concat(rows), UniformOEBaseline(n_rep=8, seed=1))
    final = rel[rel["n"] == 40]["oe_rel"]
    assert abs(final.mean()) < 3 * final.std() / np.sqrt(len(final)) + 0.5
    clustered = 0.5 + 0.01 * rng.standard_normal((40, 100))
    tight = add_oe_rel(score_trace(_trace(clustered)), UniformOEBaseline(n_rep=4, seed=1))
    assert tight["oe_rel"].iloc[-1] < -100  # far more concentrated than random search
