"""The parameter-to-coordinate rule of an Optuna study and the study shapes it refuses."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

optuna = pytest.importorskip("optuna")

from optuna.distributions import (  # noqa: E402
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.study import StudyDirection  # noqa: E402
from optuna.trial import TrialState, create_trial  # noqa: E402

from boexplore.integrations.optuna import (  # noqa: E402
    ONE_HOT,
    SearchSpace,
    StudyShapeError,
    points_from_trials,
)

SPACE = {
    "x": FloatDistribution(-5.0, 5.0),
    "lr": FloatDistribution(1e-4, 1.0, log=True),
    "n": IntDistribution(1, 11),
    "opt": CategoricalDistribution(["adam", "sgd", "rms"]),
    "fixed": FloatDistribution(2.0, 2.0),
}
MIN = [StudyDirection.MINIMIZE]


def _trial(params, dists=SPACE, value=0.0, state=TrialState.COMPLETE, number=0):
    trial = create_trial(
        params=params,
        distributions={k: dists[k] for k in params},
        value=value if state == TrialState.COMPLETE else None,
        state=state,
    )
    trial.number = number  # create_trial numbers nothing; a study numbers from 0
    return trial


def test_each_kind_maps_by_its_stated_rule():
    space = SearchSpace.of(SPACE)
    assert space.columns == ["lr", "n", "opt=adam", "opt=sgd", "opt=rms", "x"]
    assert space.constant == ("fixed",) and space.d == 6
    p = {"x": 2.5, "lr": 1e-2, "n": 6, "opt": "sgd", "fixed": 2.0}
    u = space.to_unit(0, p, SPACE)
    np.testing.assert_allclose(u, [0.5, 0.5, 0.0, ONE_HOT, 0.0, 0.75])


def test_two_different_choices_are_one_apart_equal_choices_zero():
    sub = {"opt": SPACE["opt"], "x": SPACE["x"]}
    space = SearchSpace.of(sub)
    a = space.to_unit(0, {"opt": "adam", "x": 0.0}, sub)
    b = space.to_unit(1, {"opt": "rms", "x": 0.0}, sub)
    c = space.to_unit(2, {"opt": "adam", "x": 0.0}, sub)
    assert math.isclose(np.linalg.norm(a - b), 1.0) and np.linalg.norm(a - c) == 0.0


@settings(max_examples=60, deadline=None)
@given(
    low=st.floats(1e-3, 1e3),
    width=st.floats(1e-3, 1e3),
    frac=st.floats(0.0, 1.0),
    log=st.booleans(),
    k=st.integers(2, 6),
    pick=st.integers(0, 5),
)
def test_mapped_points_lie_in_the_unit_cube(low, width, frac, log, k, pick):
    high = low + width
    dists = {"f": FloatDistribution(low, high, log=log), "c": CategoricalDistribution(range(k))}
    value = math.exp(math.log(low) + frac * math.log(high / low)) if log else low + frac * width
    value = min(max(value, low), high)
    u = SearchSpace.of(dists).to_unit(0, {"f": value, "c": pick % k}, dists)
    assert u.shape == (1 + k,) and np.all((u >= -1e-12) & (u <= 1 + 1e-12))
    assert math.isclose(u[:k].sum(), ONE_HOT)  # "c=..." columns sort before "f"
    assert math.isclose(u[-1], frac, abs_tol=1e-6)


def test_a_study_of_constants_only_is_named():
    with pytest.raises(StudyShapeError, match="no parameter with more than one"):
        SearchSpace.of({"fixed": SPACE["fixed"]})


def _base(i):
    return {"x": float(i % 5 - 2), "lr": 1e-3, "n": 1 + i % 10, "opt": "adam", "fixed": 2.0}


def test_conditional_new_and_changed_parameters_are_named():
    ok = [_trial(_base(i), number=i) for i in range(4)]
    assert points_from_trials(ok, MIN).X.shape == (4, 6)  # control: a steady space passes
    missing = {k: v for k, v in _base(4).items() if k != "lr"}
    with pytest.raises(StudyShapeError, match=r"trial 4 lacks parameter\(s\) \['lr'\]"):
        points_from_trials([*ok, _trial(missing, number=4)], MIN)
    extra = {**_base(4), "momentum": 0.5}
    dists = {**SPACE, "momentum": FloatDistribution(0.0, 1.0)}
    with pytest.raises(StudyShapeError, match="search space changed"):
        points_from_trials([*ok, _trial(extra, dists, number=4)], MIN)
    wider = {**SPACE, "x": FloatDistribution(-10.0, 10.0)}
    with pytest.raises(StudyShapeError, match="parameter 'x' is FloatDistribution"):
        points_from_trials([*ok, _trial(_base(4), wider, number=4)], MIN)


def test_trials_not_complete_are_left_out_and_counted():
    trials = [_trial(_base(i), number=i) for i in range(5)]
    for i, state in ((1, TrialState.PRUNED), (3, TrialState.FAIL)):
        trials[i] = _trial(_base(i), state=state, number=i)
    points = points_from_trials(trials, MIN)
    assert points.numbers.tolist() == [0, 2, 4]
    assert points.skipped == {"PRUNED": 1, "FAIL": 1}
    with pytest.raises(StudyShapeError, match="no COMPLETE trial"):
        points_from_trials([trials[1], trials[3]], MIN)
