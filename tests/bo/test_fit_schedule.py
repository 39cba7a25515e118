"""GP fit schedule (refit_every, fit_ftol): which iterations refit, exactness in between, resume."""

from __future__ import annotations

import pandas as pd
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from boexplore.bo.loop import refit_due, run_bo
from boexplore.bo.model import condition_gp, fit_gp, hyper_state
from boexplore.bo.settings import BOSettings

from .conftest import Quadratic

TIMING = ["fit_seconds", "acq_seconds"]


@given(st.integers(1, 500), st.integers(1, 20))
def test_refit_due_counts(iteration, k):
    # exactly one refit in every window of k consecutive iterations, the first one included
    window = [refit_due(i, k) for i in range(iteration, iteration + k)]
    assert sum(window) == 1
    assert refit_due(1, k)


def test_every_iteration_refits_by_default():
    assert all(refit_due(i, 1) for i in range(1, 50))
    assert BOSettings().refit_every == 1


@pytest.mark.parametrize("bad", [{"refit_every": 0}, {"fit_ftol": 0.0}, {"fit_ftol": 1.5}])
def test_bad_schedule_settings_rejected(bad):
    with pytest.raises(ValueError):
        BOSettings.from_kwargs(**bad)


def test_conditioned_gp_is_exact_posterior_with_fixed_hypers():
    torch.manual_seed(0)
    X = torch.rand(12, 3, dtype=torch.float64)
    Y = (X.sum(-1, keepdim=True) - 1.0) ** 2
    fitted, _ = fit_gp(X[:8], Y[:8])
    hypers = hyper_state(fitted)
    model = condition_gp(X, Y, hypers)
    for key, value in hyper_state(model).items():
        torch.testing.assert_close(value, hypers[key])
    # the posterior interpolates the new data (small noise): it has seen all 12 points
    mean = model.posterior(X[8:]).mean
    torch.testing.assert_close(mean, Y[8:], atol=0.05, rtol=0.0)
    # ... which the model fitted on 8 points does not
    assert (fitted.posterior(X[8:]).mean - Y[8:]).abs().max() > 0.05


def test_fit_seconds_zero_between_refits_and_resume_identical(tmp_path, fast):
    settings = dict(fast, refit_every=3, warm_start=True, fit_ftol=1e-6)
    full = run_bo(Quadratic(3), "logei", seed=2, budget=12, n_init=4, **settings)
    fit = full.drop_duplicates("iteration").set_index("iteration")["fit_seconds"]
    # iterations 1, 4, 7 refit; the others only condition (cheap, but not free)
    refits = [1, 4, 7]
    assert min(fit[i] for i in refits) > 2 * max(fit[i] for i in (2, 3, 5, 6, 8))

    ckpt = tmp_path / "run.ckpt"

    def stop(it: int, trace: pd.DataFrame) -> None:
        if it == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_bo(Quadratic(3), "logei", seed=2, budget=12, n_init=4, checkpoint=ckpt,
               callback=stop, **settings)  # fmt: skip
    resumed = run_bo(Quadratic(3), "logei", seed=2, budget=12, n_init=4, checkpoint=ckpt,
                     **settings)  # fmt: skip
    pd.testing.assert_frame_equal(full.drop(columns=TIMING), resumed.drop(columns=TIMING))


def test_schedule_changes_the_run(fast):
    # a control: the schedule is really used (different hyperparameters -> different points)
    a = run_bo(Quadratic(3), "logei", seed=2, budget=12, n_init=4, **fast)
    b = run_bo(Quadratic(3), "logei", seed=2, budget=12, n_init=4, refit_every=4, **fast)
    assert not a[["x_0", "x_1", "x_2"]].equals(b[["x_0", "x_1", "x_2"]])
