"""score_domain_trace: a BO trace of raw domain values scored prefix by prefix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boexplore.metrics import (
    DomainError,
    RandomSearchReference,
    domain_metrics_table,
    parse_domain,
    score_domain_trace,
)
from boexplore.metrics.domain.scoring import DOMAIN_COLUMNS


def make_trace(X: np.ndarray) -> pd.DataFrame:
    T, w = X.shape
    frame = pd.DataFrame(X, columns=[f"x_{i}" for i in range(w)])
    y = np.random.default_rng(0).random(T)
    frame = frame.assign(problem="toy", dim=w, method="rs", seed=0, eval_index=np.arange(T))
    frame = frame.assign(iteration=np.r_[np.zeros(4, int), np.arange(1, T - 3)], y=y)
    return frame.assign(best_so_far=np.maximum.accumulate(y), regret=1 - np.maximum.accumulate(y))


def test_scores_equal_the_table_whatever_the_row_order() -> None:
    dom = parse_domain("binary*6,categorical(4)*3,continuous(-2,2)")
    X = dom.sample(np.random.default_rng(1), 30)
    trace = make_trace(X)
    ref = RandomSearchReference(n_rep=2, seed=0)
    scored = score_domain_trace(trace.sample(frac=1.0, random_state=3), dom, ref)
    expected = domain_metrics_table(X, dom, ref)
    assert list(scored.columns[:5]) == ["problem", "dim", "method", "seed", "iteration"]
    assert set(DOMAIN_COLUMNS) <= set(scored.columns)
    for key, values in expected.items():
        np.testing.assert_array_equal(scored[key].to_numpy(), values)
    np.testing.assert_array_equal(scored["regret"], trace["regret"])
    assert scored["iteration"].tolist() == trace["iteration"].tolist()


def test_bad_values_and_bad_traces_are_named() -> None:
    dom = parse_domain("binary*2,categorical(3)")
    trace = make_trace(dom.sample(np.random.default_rng(0), 8))
    trace.loc[5, "x_2"] = 3
    with pytest.raises(DomainError, match="trace x columns holds 3 in row 5, column 2"):
        score_domain_trace(trace, dom)
    with pytest.raises(ValueError, match="lacks"):
        score_domain_trace(trace.drop(columns="seed"), dom)
    with pytest.raises(ValueError, match="duplicate eval_index"):
        score_domain_trace(trace.assign(eval_index=0), dom)


def test_tracker_needs_points_and_checks_them() -> None:
    from boexplore.metrics import DomainExplorationTracker

    tracker = DomainExplorationTracker("binary*3,categorical(4)")
    with pytest.raises(ValueError, match="no points yet"):
        _ = tracker.otsd
    with pytest.raises(DomainError, match="has 3 columns"):
        tracker.update([0, 1, 1])
    with pytest.raises(DomainError, match="holds 4 in row 0, column 3"):
        tracker.update([0, 1, 1, 4])
    tracker.update([[0, 1, 1, 3], [1, 1, 1, 0]])
    assert len(tracker) == 2 and tracker.otsd == 4.0 and tracker.upper_bound == 8.0
    assert tracker.lower_bound == 4.0 and np.isfinite(tracker.entropy)
