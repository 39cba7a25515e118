import numpy as np
import pytest
from synthetic import synthetic_metrics, zero_oe_estimator

from boexplore.metrics.oe_baseline import UniformOEBaseline, add_oe_rel


def test_uniform_baseline_matches_reference_values():
    # metrics-notes §4: self-excluding KL estimate for 200 uniform points, d=20: 5.97 ± 0.12
    b = UniformOEBaseline(n_rep=4, seed=1)
    assert b.value(20, 199) == pytest.approx(5.97, abs=0.4)
    # random points have oe_rel ≈ 0, clustered points strongly negative
    from boexplore.metrics import observation_entropy

    rng = np.random.default_rng(9)
    rand = observation_entropy(rng.random((60, 5)))[-1] - b.value(5, 60)
    clus = observation_entropy(0.5 + 0.01 * rng.normal(size=(60, 5)))[-1] - b.value(5, 60)
    assert abs(rand) < 0.6 and clus < -10


def test_baseline_is_seeded_and_prefix_consistent():
    a = UniformOEBaseline(n_rep=3, seed=0)
    c = UniformOEBaseline(n_rep=3, seed=0)
    short = a.curve(3, 20)
    long = c.curve(3, 40)
    np.testing.assert_allclose(short, long[:20], equal_nan=True)
    assert set(c.table()["dim"]) == {3}
    with pytest.raises(ValueError):
        a.curve(0, 5)
    with pytest.raises(ValueError):
        UniformOEBaseline(n_rep=0)


def test_add_oe_rel_subtracts_baseline():
    m = synthetic_metrics(problems=(("p", 3),), levels={"a": 0.5}, seeds=2, T=6)
    out = add_oe_rel(m, UniformOEBaseline(1, estimator=lambda X: np.arange(X.shape[0]) * 1.0))
    np.testing.assert_allclose(out["oe_rel"], out["oe_kl"] - (out["n"] - 1))
    with pytest.raises(ValueError, match="oe_kl"):
        add_oe_rel(m.drop(columns="oe_kl"), UniformOEBaseline(1, estimator=zero_oe_estimator))
