"""Contract checks for *every* registered problem at its default dimension.

Parametrised over the registry, so problems added by other parts are covered
as soon as they register. Kept fast: one instance (plus one re-creation) and 5
points per problem. A problem whose optional simulator or external data is
missing is skipped with the reason.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from boexplore.problems import Problem, get_problem, list_problems, load_instance, save_instance

INFOS = {info.name: info for info in list_problems()}
_CACHE: dict[str, Problem] = {}


REPO = Path(__file__).resolve().parents[2]


def _dna_options() -> dict[str, Any]:
    """``lasso_dna`` needs the user's LIBSVM file: $BOEXPLORE_DNA_PATH or ../shared/data."""
    candidates = [os.environ.get("BOEXPLORE_DNA_PATH"), REPO.parent / "shared/data/dna.scale"]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return {"data_path": str(candidate)}
    pytest.skip("lasso_dna: LIBSVM dna file not available (set BOEXPLORE_DNA_PATH)")


# Problems that cannot be built from defaults alone: how to get their required options.
REQUIRED_OPTIONS: dict[str, Callable[[], dict[str, Any]]] = {"lasso_dna": _dna_options}


def _default_dim(name: str) -> int:
    info = INFOS[name]
    return info.default_dim if info.default_dim is not None else info.min_dim


def _make(name: str) -> Problem:
    options = REQUIRED_OPTIONS[name]() if name in REQUIRED_OPTIONS else {}
    try:
        return get_problem(name, dim=_default_dim(name), instance_seed=1, **options)
    except ImportError as exc:
        pytest.skip(f"{name}: optional dependency missing ({exc})")
    except FileNotFoundError as exc:
        pytest.skip(f"{name}: external data missing ({exc})")


def _problem(name: str) -> Problem:
    if name not in _CACHE:
        _CACHE[name] = _make(name)
    return _CACHE[name]


def _points(problem: Problem) -> np.ndarray:
    return np.random.default_rng(123).random((5, problem.dim))


@pytest.fixture(params=sorted(INFOS))
def name(request) -> str:
    return request.param


def test_attributes_follow_the_interface(name):
    problem = _problem(name)
    assert problem.name == name and problem.dim == _default_dim(name)
    assert problem.bounds.shape == (2, problem.dim)
    assert np.all(problem.bounds[0] < problem.bounds[1])
    assert isinstance(problem.negated, bool) and problem.noise_std >= 0
    assert problem.optimum_value is None or np.isfinite(problem.optimum_value)
    json.dumps(problem.to_spec())  # JSON-serialisable


def test_evaluate_is_deterministic(name):
    problem = _problem(name)
    X = _points(problem)
    y = problem.evaluate(X)
    assert y.shape == (5,) and y.dtype == np.float64 and np.all(np.isfinite(y))
    np.testing.assert_array_equal(problem.evaluate(X), y)
    if problem.optimum_value is not None and problem.noise_std == 0:
        assert np.all(y <= problem.optimum_value + 1e-6 * max(1.0, abs(problem.optimum_value)))


def test_spec_round_trip(name, tmp_path):
    problem = _problem(name)
    path = save_instance(problem, tmp_path / f"{name}.json")
    loaded = load_instance(path)
    assert loaded.name == name and loaded.dim == problem.dim
    X = _points(problem)
    np.testing.assert_array_equal(loaded.evaluate(X), problem.evaluate(X))


def test_bad_inputs_rejected(name):
    problem = _problem(name)
    d = problem.dim
    bad_inputs = [
        np.full((2, d + 1), 0.5),
        np.full((2, d), np.nan),
        np.full((2, d), 1.5),
        np.full((2, d), -0.5),
    ]
    for X in bad_inputs:
        with pytest.raises(ValueError, match=name):
            problem.evaluate(X)


def test_dim_out_of_range_rejected(name):
    info = INFOS[name]
    if info.min_dim > 1:
        with pytest.raises(ValueError, match=name):
            get_problem(name, dim=info.min_dim - 1)
    if info.max_dim is not None:
        with pytest.raises(ValueError, match=name):
            get_problem(name, dim=info.max_dim + 1)
