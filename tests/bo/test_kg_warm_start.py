"""qKG warm start (opt-in) and the optimiser options BoTorch's batched fast path accepts."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from botorch.generation.gen import get_reasons_against_fast_path
from botorch.optim.optimize import INIT_OPTION_KEYS

from boexplore.bo.acquisition import build_acqf, propose
from boexplore.bo.acquisition.proposal import (
    OneShotCarry,
    optimizer_options,
    warm_ic_generator,
)
from boexplore.bo.loop import RunState, run_bo
from boexplore.bo.methods import parse_method
from boexplore.bo.model import fit_gp
from boexplore.bo.settings import BOSettings

from .conftest import Quadratic

D, N, FANTASIES = 2, 12, 4


@pytest.fixture(scope="module")
def state() -> tuple:
    X = torch.as_tensor(np.random.default_rng(0).random((N, D)), dtype=torch.float64)
    Y = -((X - 0.3) ** 2).sum(-1, keepdim=True)
    model, _ = fit_gp(X, Y)
    bounds = torch.stack([torch.zeros(D), torch.ones(D)]).to(torch.float64)
    return model, X, Y, bounds


def _fast_path_reasons(options: dict) -> list[str]:
    """What ``gen_candidates_scipy`` decides for these ``optimize_acqf`` options."""
    gen = {k: v for k, v in options.items() if k not in INIT_OPTION_KEYS}
    drop = ("method", "callback", "with_grad", "max_optimization_problem_aggregation_size")
    minimize = {k: v for k, v in gen.items() if k not in drop}
    return get_reasons_against_fast_path(
        method=str(gen.get("method", "L-BFGS-B")),
        with_grad=bool(gen.get("with_grad", True)),
        minimize_options=minimize,
        timeout_sec=None,
    )


@pytest.mark.parametrize("cap", [None, 1e6])
def test_kg_options_keep_botorch_fast_path(state, cap):
    model, X, Y, bounds = state
    settings = BOSettings.from_kwargs(kg_memory_cap_mb=cap)
    acqf = build_acqf(parse_method(f"kg(fantasies={FANTASIES})"), model, 0.0, bounds, None,
                      settings, 0)  # fmt: skip
    options = optimizer_options(acqf, 1, settings)
    assert _fast_path_reasons(options) == []
    assert options["batch_limit"] == (1 if cap is None else settings.num_restarts)
    # the check can fail: an option scipy's L-BFGS-B does not take leaves the fast path
    assert _fast_path_reasons({**options, "eta": 2.0, "lr": 0.1})


def test_pes_options_leave_fast_path_by_design(state):
    """PES is optimised by finite differences (with_grad=False): never the fast path."""
    model, X, Y, bounds = state
    settings = BOSettings()
    acqf = build_acqf(parse_method("pes"), model, float(Y.max()), bounds, None, settings, 0)
    reasons = _fast_path_reasons(optimizer_options(acqf, 1, settings))
    assert reasons == ["with_grad=False, it needs to be True"]


def test_warm_ic_generator_puts_previous_tree_first(state):
    model, X, Y, bounds = state
    acqf = build_acqf(parse_method(f"kg(fantasies={FANTASIES})"), model, 0.0, bounds, None,
                      BOSettings(), 0)  # fmt: skip
    tree = torch.full((1 + FANTASIES, D), 0.25, dtype=torch.float64)
    tree[0, 0] = 1.7  # outside the box: clamped
    ics = warm_ic_generator(tree)(acqf, bounds, 1, 3, 16, options={})
    assert ics.shape == (3, 1 + FANTASIES, D)
    assert ics[0, 0, 0] == 1.0 and torch.all(ics[0, 1:] == 0.25)
    assert not torch.equal(ics[1], ics[0])


def test_propose_warm_start_carries_full_tree(state, fast):
    model, X, Y, bounds = state
    spec = parse_method(f"kg(fantasies={FANTASIES})")
    settings = BOSettings.from_kwargs(**fast, kg_warm_start=True)
    carry = OneShotCarry()
    x1, flag = propose(spec, model, X, Y, bounds, 1, settings, np.random.default_rng(0), 1,
                       carry=carry)  # fmt: skip
    assert flag == "" and x1.shape == (1, D)
    assert carry.tree is not None and carry.tree.shape == (1 + FANTASIES, D)
    assert torch.allclose(carry.tree[:1], x1)
    first = carry.tree.clone()
    x2, flag = propose(spec, model, X, Y, bounds, 1, settings, np.random.default_rng(1), 2,
                       carry=carry)  # fmt: skip
    assert flag == "" and carry.tree.shape == first.shape
    # off (the default): no tree is kept
    off = OneShotCarry()
    propose(spec, model, X, Y, bounds, 1, BOSettings.from_kwargs(**fast),
            np.random.default_rng(0), 1, carry=off)  # fmt: skip
    assert off.tree is None


def test_checkpoint_state_round_trips_kg_tree():
    state = RunState(2)
    state.append(np.zeros((3, 2)), np.zeros(3), 0, 0.0, 0.0, "")
    arrays, scalars = state.to_arrays()
    assert "kg_tree" not in arrays and "kg_tree" not in scalars  # old checkpoints unchanged
    state.kg_tree = np.arange(10.0).reshape(5, 2)
    back = RunState.from_arrays(*state.to_arrays())
    assert np.array_equal(back.kg_tree, state.kg_tree)


def test_memory_cap_must_be_positive():
    with pytest.raises(ValueError, match="kg_memory_cap_mb"):
        BOSettings.from_kwargs(kg_memory_cap_mb=0)


class _Kill(RuntimeError):
    pass


def test_warm_started_run_resumes_from_its_checkpoint(tmp_path, fast):
    """The one-shot tree is part of the checkpoint: kill + resume equals an uninterrupted run."""
    spec, kw = f"kg(fantasies={FANTASIES})", {**fast, "kg_warm_start": True}
    timing = ["fit_seconds", "acq_seconds"]
    full = run_bo(Quadratic(2), spec, seed=5, budget=8, n_init=4, **kw).drop(columns=timing)
    ckpt = tmp_path / "run.ckpt"

    def kill_after_2(it: int, trace: object) -> None:
        if it == 2:
            raise _Kill

    with pytest.raises(_Kill):
        run_bo(Quadratic(2), spec, seed=5, budget=8, n_init=4, checkpoint=ckpt,
               callback=kill_after_2, **kw)  # fmt: skip
    resumed = run_bo(Quadratic(2), spec, seed=5, budget=8, n_init=4, checkpoint=ckpt, **kw)
    assert resumed.drop(columns=timing).equals(full)
    cold = run_bo(Quadratic(2), spec, seed=5, budget=8, n_init=4, **fast).drop(columns=timing)
    assert not np.allclose(cold["x_0"].iloc[5:], full["x_0"].iloc[5:])


def test_new_settings_stay_out_of_the_identity_at_their_defaults():
    from boexplore.bo.loop import IDENTITY_IF_SET

    defaults = BOSettings().to_dict()
    assert all(defaults[k] == v for k, v in IDENTITY_IF_SET.items())
