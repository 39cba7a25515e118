"""Extending a run from its trace: same numbers as the longer run, clear refusals otherwise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boexplore.bo.extend import TraceExtensionError
from boexplore.bo.loop import run_bo
from boexplore.pipeline.release import compact, expand
from boexplore.problems import get_problem

FAST = {"num_restarts": 2, "raw_samples": 64}
SAME = ["iteration", "batch_index", "x_0", "x_1", "y", "best_so_far", "tr_length"]


def _run(spec: str, budget: int, seed: int = 0, **kw):
    problem = get_problem("branin", 2)
    return run_bo(problem, spec, seed=seed, budget=budget, n_init=4, **FAST, **kw)


@pytest.mark.parametrize("spec", ["logei+tr", "random"])
def test_extending_12_to_20_equals_a_fresh_20_evaluation_run(spec):
    fresh = _run(spec, 20)
    short = _run(spec, 12)
    extended = _run(spec, 20, extend_from=short)
    pd.testing.assert_frame_equal(extended[SAME], fresh[SAME])
    pd.testing.assert_frame_equal(extended.iloc[:12], short)  # the first rows stay as they were


def test_batched_run_extends_batch_by_batch():
    fresh = _run("ucb(beta=2)+q2", 10)
    extended = _run("ucb(beta=2)+q2", 10, extend_from=_run("ucb(beta=2)+q2", 6))
    pd.testing.assert_frame_equal(extended[SAME], fresh[SAME])


def test_released_float32_trace_is_continued_from_its_rounded_values():
    released = expand(compact(_run("logei", 8)))
    a = _run("logei", 11, extend_from=released)
    b = _run("logei", 11, extend_from=released)
    pd.testing.assert_frame_equal(a[SAME], b[SAME])  # a function of the released trace
    pd.testing.assert_frame_equal(a.iloc[:8][SAME[:-1]], released[SAME[:-1]])


def test_a_tampered_prefix_changes_the_continuation():
    """Control: the continuation really depends on the stored state (the equality can fail)."""
    short = _run("logei", 8)
    moved = short.copy()
    moved.loc[7, "x_0"] = 1.0 - moved.loc[7, "x_0"]
    moved.loc[7, "y"] = get_problem("branin", 2).evaluate(
        moved.loc[[7], ["x_0", "x_1"]].to_numpy()
    )[0]
    a = _run("logei", 10, extend_from=short)
    b = _run("logei", 10, extend_from=moved)
    assert not np.allclose(a["x_0"].iloc[8:], b["x_0"].iloc[8:])


def _refused(trace, fragment, spec="logei", budget=12, seed=0, **kw):
    with pytest.raises(TraceExtensionError, match=fragment):
        _run(spec, budget, seed=seed, extend_from=trace, **kw)


def test_refusals_name_the_reason():
    short = _run("random", 8)
    _refused(short, "no rows for seed 1", spec="random", seed=1)
    _refused(short.assign(seed=1), "not seed 1's design", spec="random", seed=1)
    _refused(short, "method 'random', not 'logei'")
    _refused(short.assign(y=short["y"] + 1.0), "another instance", spec="random")
    _refused(short, "holds 8 evaluations, budget is 6", spec="random", budget=6)
    cut = _run("random+q2", 7)  # the last batch has one point
    _refused(cut, "was cut", spec="random+q2", budget=12)
    _refused(_run("logei", 6), "warm-started or reused", warm_start=True)
    _refused(short.assign(method="kg"), "warm-started qKG", spec="kg", kg_warm_start=True)
    tr = _run("random+tr", 9)
    _refused(tr.assign(tr_length=tr["tr_length"] * 2), "trust region", spec="random+tr")
