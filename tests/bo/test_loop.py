"""BO loop: every method runs, batches, determinism, kill-and-resume, NaN policy, guards."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boexplore.bo.loop import impute_nan, run_bo
from boexplore.bo.methods import METHODS

from .conftest import Quadratic

TIMING = ["fit_seconds", "acq_seconds"]
SMALL_PARAMS = {
    "kg": "kg(fantasies=2)",
    "mes": "mes(candidates=64,y_samples=16)",
    "gibbon": "gibbon(candidates=64)",
    "jes": "jes(optima=4)",
    "pes": "pes(optima=2,ep_iterations=20)",
    "ts": "ts(candidates=256)",
}


def _columns(d: int) -> list[str]:
    head = ["problem", "dim", "method", "method_spec", "seed", "eval_index", "iteration"]
    head += ["batch_index", "is_initial"] + [f"x_{j}" for j in range(d)]
    tail = ["y", "best_so_far", "regret", "fit_seconds", "acq_seconds", "fallback"]
    return head + tail + ["tr_length", "raasp_n_perturbed"]


@pytest.mark.parametrize("base", sorted(METHODS))
def test_every_method_three_iterations(base, branin, fast):
    spec = SMALL_PARAMS.get(base, base)
    trace = run_bo(branin, spec, seed=0, budget=7, n_init=4, **fast)
    assert list(trace.columns) == _columns(2)
    assert len(trace) == 7
    assert trace["iteration"].tolist() == [0, 0, 0, 0, 1, 2, 3]
    assert trace["is_initial"].sum() == 4
    X = trace[["x_0", "x_1"]].to_numpy()
    assert np.all((X >= 0) & (X <= 1))
    assert (trace["fallback"] == "").all(), trace["fallback"].tolist()
    assert np.all(np.diff(trace["best_so_far"]) >= 0)
    np.testing.assert_allclose(trace["regret"], branin.optimum_value - trace["best_so_far"])
    assert (
        trace["method"].iloc[0] == trace["method"].iloc[0] and trace["problem"].iloc[0] == "branin"
    )


@pytest.mark.parametrize("spec", ["ucb+q3", "ts(candidates=256)+q3", "mes(candidates=64)+q3",
                                  "kg(fantasies=2)+q3", "greedy+q3"])  # fmt: skip
def test_batch_returns_q_distinct_points(spec, fast):
    # budget 9 = 4 initial + a batch of 3 + a truncated batch of 2 (budget respected)
    trace = run_bo(Quadratic(2), spec, seed=1, budget=9, n_init=4, **fast)
    assert trace["iteration"].tolist() == [0] * 4 + [1] * 3 + [2] * 2
    assert trace["batch_index"].tolist()[4:] == [0, 1, 2, 0, 1]
    for _, batch in trace[trace["iteration"] > 0].groupby("iteration"):
        pts = batch[["x_0", "x_1"]].to_numpy()
        assert len(np.unique(pts.round(8), axis=0)) == len(pts)


def test_same_seed_same_trace_other_seed_differs(fast):
    a = run_bo(Quadratic(2), "logei+tr", seed=3, budget=9, n_init=4, **fast)
    b = run_bo(Quadratic(2), "logei+tr", seed=3, budget=9, n_init=4, **fast)
    c = run_bo(Quadratic(2), "logei+tr", seed=4, budget=9, n_init=4, **fast)
    pd.testing.assert_frame_equal(a.drop(columns=TIMING), b.drop(columns=TIMING))
    assert not np.allclose(a["x_0"], c["x_0"])


class _Kill(RuntimeError):
    pass


@pytest.mark.parametrize("spec", ["ts(candidates=256)+q2+tr", "random"])
def test_kill_and_resume_equals_uninterrupted(spec, tmp_path, fast):
    full = run_bo(Quadratic(2), spec, seed=5, budget=12, n_init=4, **fast)
    ckpt = tmp_path / "run.ckpt"

    def kill_after_2(it: int, trace: pd.DataFrame) -> None:
        if it == 2:
            raise _Kill

    with pytest.raises(_Kill):
        run_bo(Quadratic(2), spec, seed=5, budget=12, n_init=4, checkpoint=ckpt,
               callback=kill_after_2, **fast)  # fmt: skip
    assert ckpt.exists()
    seen: list[int] = []
    resumed = run_bo(Quadratic(2), spec, seed=5, budget=12, n_init=4, checkpoint=ckpt,
                     callback=lambda it, tr: seen.append(it), **fast)  # fmt: skip
    assert seen[0] == 3  # it continued after the killed iteration
    pd.testing.assert_frame_equal(full.drop(columns=TIMING), resumed.drop(columns=TIMING))
    # a checkpoint of another run is never resumed: moved aside, the run starts afresh
    other = run_bo(Quadratic(2), spec, seed=6, budget=12, n_init=4, checkpoint=ckpt, **fast)
    assert (tmp_path / "run.ckpt.stale-identity").exists()
    fresh = run_bo(Quadratic(2), spec, seed=6, budget=12, n_init=4, **fast)
    pd.testing.assert_frame_equal(other.drop(columns=TIMING), fresh.drop(columns=TIMING))


def test_nan_policy(fast):
    problem = Quadratic(2, nan_every=3)
    trace = run_bo(problem, "logei", seed=0, budget=10, n_init=4, **fast)
    y = trace["y"].to_numpy()
    assert np.isnan(y).sum() == 3  # NaN kept in the trace
    expected = np.fmax.accumulate(y)  # ignores NaN
    np.testing.assert_array_equal(trace["best_so_far"].to_numpy(), expected)
    assert not np.isnan(trace["best_so_far"].iloc[-1])
    assert (trace["fallback"] == "").all()


def test_all_nan_start_is_survivable(fast):
    class AllNaN(Quadratic):
        def evaluate(self, X):
            return np.full(len(np.atleast_2d(X)), np.nan)

    trace = run_bo(AllNaN(2), "ucb+tr", seed=0, budget=6, n_init=3, **fast)
    assert trace["y"].isna().all() and trace["best_so_far"].isna().all()


def test_impute_nan():
    np.testing.assert_array_equal(
        impute_nan(np.array([1.0, np.nan, -2.0, np.inf])), [1, -2, -2, -2]
    )
    np.testing.assert_array_equal(impute_nan(np.array([np.nan, np.nan])), [0.0, 0.0])


def test_trust_region_restricts_candidates(fast):
    trace = run_bo(Quadratic(2), "ucb(beta=100)+tr", seed=2, budget=10, n_init=4,
                   tr_failure_tolerance=1, **fast)  # fmt: skip
    assert len(trace) == 10


def test_acquisition_timeout_falls_back_and_is_logged(fast):
    settings = dict(fast, acq_timeout=1e-4)
    trace = run_bo(Quadratic(2), "logei", seed=0, budget=6, n_init=4, **settings)
    flags = trace["fallback"].tolist()[4:]
    assert flags == ["error:AcquisitionTimeout"] * 2
    X = trace[["x_0", "x_1"]].to_numpy()
    assert np.all((X >= 0) & (X <= 1))


def test_timeout_is_not_swallowed_by_library_error_handlers():
    """The guard's signal can land inside ``except RuntimeError`` / ``except Exception`` blocks
    of BoTorch or GPyTorch; it must still arrive as ``AcquisitionTimeout``."""
    import time

    import boexplore.bo.acquisition.proposal as prop

    def busy_library_call() -> None:
        try:
            end = time.process_time() + 5.0
            while time.process_time() < end:
                pass
        except (RuntimeError, Exception) as exc:  # what a library might do
            raise RuntimeError("re-raised by the library") from exc

    start = time.process_time()
    with pytest.raises(prop.AcquisitionTimeout):
        with prop.hard_time_limit(0.05):
            busy_library_call()
    assert time.process_time() - start < 2.0


def test_acquisition_error_falls_back(monkeypatch, fast):
    import boexplore.bo.acquisition.proposal as prop

    def boom(*args, **kwargs):
        raise RuntimeError("simulated numerical failure")

    monkeypatch.setattr(prop, "build_acqf", boom)
    trace = run_bo(Quadratic(2), "logei", seed=0, budget=6, n_init=4, **fast)
    assert trace["fallback"].tolist()[4:] == ["error:RuntimeError"] * 2


def test_bad_arguments(fast):
    with pytest.raises(ValueError, match="budget"):
        run_bo(Quadratic(2), "logei", seed=0, budget=3, n_init=4)
    with pytest.raises(ValueError, match="n_init"):
        run_bo(Quadratic(2), "logei", seed=0, budget=3, n_init=0)
    with pytest.raises(ValueError, match="unknown BO setting"):
        run_bo(Quadratic(2), "logei", seed=0, budget=5, n_init=4, num_restart=3)
    with pytest.raises(ValueError, match="unknown method"):
        run_bo(Quadratic(2), "xyz", seed=0, budget=5, n_init=4)


def test_pes_refuses_high_dim_with_clear_error():
    with pytest.raises(ValueError, match="pes_max_dim"):
        run_bo(Quadratic(30), "pes", seed=0, budget=5, n_init=4)


def test_hard_time_limit_counts_cpu_time(monkeypatch, fast):
    """A step that computes past the limit is aborted by the CPU-time guard."""
    import time

    import boexplore.bo.acquisition.proposal as prop

    def spin(*args, **kwargs):
        end = time.process_time() + 30
        while time.process_time() < end:
            pass

    monkeypatch.setattr(prop, "_propose_af", spin)
    start = time.perf_counter()
    trace = run_bo(
        Quadratic(2), "logei", seed=0, budget=5, n_init=4, **dict(fast, acq_timeout=0.05)
    )
    assert time.perf_counter() - start < 20
    assert trace["fallback"].iloc[-1] == "error:AcquisitionTimeout"


def test_cpu_time_limit_ignores_waiting_but_backstop_ends_a_hang(monkeypatch, fast):
    """Waiting uses no CPU: the CPU guard does not fire before the wall backstop (10x)."""
    import time

    import boexplore.bo.acquisition.proposal as prop

    start = time.perf_counter()
    with pytest.raises(prop.AcquisitionTimeout, match="wall"):
        with prop.hard_time_limit(0.05):
            time.sleep(5)
    # A wall-clock guard would have fired after 0.05 s; this one waited for the backstop.
    assert time.perf_counter() - start >= 0.9 * prop.WALL_BACKSTOP_FACTOR * 0.05
    start = time.perf_counter()
    with pytest.raises(prop.AcquisitionTimeout, match="CPU"):
        with prop.hard_time_limit(0.05):
            while time.perf_counter() - start < 5:
                pass


def test_hard_time_limit_aborts_a_hanging_step(monkeypatch, fast):
    import time

    import boexplore.bo.acquisition.proposal as prop

    def hang(*args, **kwargs):
        time.sleep(30)

    monkeypatch.setattr(prop, "_propose_af", hang)
    start = time.perf_counter()
    trace = run_bo(
        Quadratic(2), "logei", seed=0, budget=5, n_init=4, **dict(fast, acq_timeout=0.05)
    )
    assert time.perf_counter() - start < 20
    assert trace["fallback"].iloc[-1] == "error:AcquisitionTimeout"


def test_trust_region_shrinks_within_budget_and_is_traced(fast):
    """With TuRBO's tolerances at d = 2 (4 failures) the region acts within 30 evaluations."""
    trace = run_bo(Quadratic(2), "logei+tr", seed=0, budget=30, n_init=5, **fast)
    lengths = trace["tr_length"].to_numpy()
    assert np.isnan(lengths[:5]).all() and np.isfinite(lengths[5:]).all()
    assert lengths[5] == 0.8 and len(np.unique(lengths[5:])) > 1
    plain = run_bo(Quadratic(2), "logei", seed=0, budget=6, n_init=5, **fast)
    assert plain["tr_length"].isna().all() and plain["raasp_n_perturbed"].isna().all()


def test_raasp_column_reports_perturbed_coordinates(fast):
    trace = run_bo(Quadratic(4), "logei+raasp", seed=0, budget=7, n_init=5, **fast)
    n_pert = trace["raasp_n_perturbed"].to_numpy()[5:]
    # d = 4: p = min(20/4, 0.5) = 0.5 -> ~2 of 4 coordinates, never all on average
    assert np.all((n_pert >= 1) & (n_pert < 3.5)), n_pert


def test_gp_prior_setting_changes_the_trace_and_is_in_the_identity_only_when_set(fast, tmp_path):
    """The default prior keeps the identity traces had before the setting existed."""
    from boexplore.bo.checkpoint import read_checkpoint

    def run(name: str, **kw):
        ck = tmp_path / f"{name}.ckpt"
        trace = run_bo(Quadratic(3), "logei", seed=2, budget=9, n_init=4, checkpoint=ck, **kw)
        return trace, read_checkpoint(ck).meta["identity"]["settings"]

    default, s_default = run("default", **fast)
    explicit, s_explicit = run("explicit", gp_prior="dim_scaled", **fast)
    gamma, s_gamma = run("gamma", gp_prior="gamma", **fast)
    assert "gp_prior" not in s_default and s_explicit == s_default
    assert s_gamma["gp_prior"] == "gamma"
    xs = [f"x_{j}" for j in range(3)]
    pd.testing.assert_frame_equal(default[xs], explicit[xs])
    np.testing.assert_array_equal(default[xs].to_numpy()[:4], gamma[xs].to_numpy()[:4])
    assert not np.allclose(default[xs].to_numpy()[4:], gamma[xs].to_numpy()[4:])
