"""A real Optuna study on sqlite storage: the callback's stored metrics, `boexplore diagnose`."""

import math
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

optuna = pytest.importorskip("optuna")

from optuna.trial import TrialState  # noqa: E402

from boexplore.cli import main  # noqa: E402
from boexplore.integrations.optuna import (  # noqa: E402
    ExplorationCallback,
    StudyShapeError,
    load_study_points,
)

optuna.logging.set_verbosity(optuna.logging.WARNING)
N_TRIALS = 30


def objective(trial):
    """Cheap mixed-space function; some trials pruned, some failed (NaN), to be left out."""
    x = trial.suggest_float("x", -5.0, 5.0)
    lr = trial.suggest_float("lr", 1e-4, 1.0, log=True)
    n = trial.suggest_int("n", 1, 10)
    opt = trial.suggest_categorical("opt", ["adam", "sgd", "rms"])
    if trial.number % 7 == 3:
        raise optuna.TrialPruned()
    if trial.number % 11 == 5:
        return float("nan")  # Optuna marks the trial FAIL
    return (x - 1.0) ** 2 + math.log10(lr) ** 2 + 0.1 * n + (opt == "sgd")


def _study(url, name="tpe", seed=0):
    sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=8)
    return optuna.create_study(storage=url, study_name=name, sampler=sampler)


@pytest.fixture(scope="module")
def tracked(tmp_path_factory):
    """A TPE study of N_TRIALS trials on sqlite, tracked live; (url, callback, seconds)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('optuna') / 'study.db'}"
    explore = ExplorationCallback()
    start = time.perf_counter()
    _study(url).optimize(explore.wrap(objective), n_trials=N_TRIALS, callbacks=[explore])
    return url, explore, time.perf_counter() - start


def test_stored_attrs_equal_boexplore_metrics_on_the_same_points(tracked, tmp_path):
    url, explore, seconds = tracked
    assert seconds < 60
    study = optuna.load_study(study_name="tpe", storage=url)  # a fresh reader of the storage
    trials = study.get_trials()
    done = [t for t in trials if t.state == TrialState.COMPLETE]
    assert len(trials) == N_TRIALS and 20 <= len(done) < N_TRIALS
    assert all("boexplore_otsd" not in t.user_attrs for t in trials if t not in done)
    assert [t.user_attrs["boexplore_t"] for t in done] == list(range(1, len(done) + 1))
    pts, table = tmp_path / "points.csv", tmp_path / "metrics.csv"
    code = main(
        ["diagnose", "--optuna-storage", url, "--study", "tpe", "--write-points", str(pts)]
        + ["-o", str(tmp_path / "timeline.csv")]
    )
    assert code == 0
    assert main(["metrics", str(pts), "-o", str(table), "--oe-reps", "0"]) == 0
    ref = pd.read_csv(table)
    stored = pd.DataFrame([t.user_attrs for t in done])
    np.testing.assert_allclose(stored["boexplore_otsd"], ref["otsd"], rtol=1e-12)
    np.testing.assert_allclose(stored["boexplore_otsd_norm"], ref["otsd_norm"], rtol=1e-12)
    oe = stored["boexplore_oe"].astype(float).to_numpy()  # None (undefined) -> NaN
    np.testing.assert_array_equal(np.isnan(oe), ref["oe_kl"].isna())
    np.testing.assert_allclose(oe[~np.isnan(oe)], ref["oe_kl"].dropna(), rtol=1e-9)
    assert np.isfinite(oe[-1])  # OE is defined by the end (N >= d)
    # control: the same points in another order give other metrics, so the check can fail
    shuffled = pd.read_csv(pts).sample(frac=1.0, random_state=1)
    shuffled.to_csv(tmp_path / "shuffled.csv", index=False)
    main(["metrics", str(tmp_path / "shuffled.csv"), "-o", str(table), "--oe-reps", "0"])
    assert not np.allclose(stored["boexplore_otsd"], pd.read_csv(table)["otsd"])


def test_diagnose_reads_the_study_and_checks_the_stored_attrs(tracked, tmp_path, capsys):
    url, explore, _ = tracked
    out, fig = tmp_path / "tl.csv", tmp_path / "tl.png"
    args = ["diagnose", "--optuna-storage", url, "-o", str(out), "--figure", str(fig)]
    assert main(args) == 0  # one study in the storage: --study may be left out
    err = capsys.readouterr().err
    tl = pd.read_csv(out)
    assert tl["trial"].tolist() == explore.numbers and fig.stat().st_size > 1000
    assert f"{len(explore.numbers)} complete trials counted" in err
    assert "pruned" in err and "fail" in err and "minimised" in err
    assert "agree with the recomputed metrics" in err
    assert "final state" in err
    # minimised study: the timeline's incumbent is the best (largest) negated value
    values = optuna.load_study(study_name="tpe", storage=url).best_value
    assert math.isclose(tl["best"].iloc[-1], -values)


def test_diagnose_names_bad_storages_and_studies(tracked, tmp_path, capsys):
    url, _, _ = tracked
    cases = [
        (["--optuna-storage", url, "--study", "nope"], "has no study 'nope'"),
        (["--optuna-storage", f"sqlite:///{tmp_path / 'missing.db'}"], "no such sqlite file"),
        (["--optuna-storage", "study.db"], "not a database URL"),
        (
            ["--optuna-storage", url, "trace.csv"],
            "one of a TRACE file, --optuna-storage URL or --ax-snapshot",
        ),
        (["--optuna-storage", url, "--minimize"], "states its direction"),
        (["--study", "tpe", "trace.csv"], "--study needs --optuna-storage"),
    ]
    for extra, message in cases:
        assert main(["diagnose", *extra]) == 2, extra
        assert message in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()  # the check created no empty database


def _conditional(trial):
    kind = trial.suggest_categorical("kind", ["linear", "tree"])
    if kind == "tree":
        return trial.suggest_int("depth", 1, 8)
    return trial.suggest_float("alpha", 0.0, 1.0)


def test_a_conditional_study_is_named_live_and_after_the_fact(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'cond.db'}"
    study = _study(url, "cond")
    study.optimize(_conditional, n_trials=12)  # untracked run
    assert main(["diagnose", "--optuna-storage", url]) == 2
    assert "conditional parameters are not measured" in capsys.readouterr().err
    explore = ExplorationCallback()
    with pytest.raises(StudyShapeError, match="conditional|search space changed"):
        study.optimize(explore.wrap(_conditional), n_trials=1, callbacks=[explore])


def test_resumed_study_continues_the_sequence(tmp_path):
    url = f"sqlite:///{tmp_path / 'resume.db'}"
    first = ExplorationCallback()
    _study(url, "r").optimize(first.wrap(objective), n_trials=12, callbacks=[first])
    later = ExplorationCallback()  # a new process: the study so far is replayed first
    study = optuna.load_study(study_name="r", storage=url)
    study.optimize(later.wrap(objective), n_trials=10, callbacks=[later])
    assert later.numbers[: len(first.numbers)] == first.numbers
    points = load_study_points(url, "r")
    np.testing.assert_allclose(points.stored["boexplore_otsd"], later.tracker.otsd_history)
    assert points.numbers.tolist() == later.numbers


def test_an_unwrapped_objective_and_an_out_of_order_completion_are_named(tmp_path):
    url = f"sqlite:///{tmp_path / 'bad.db'}"
    study = _study(url, "bad")
    plain = ExplorationCallback()
    with pytest.raises(StudyShapeError, match="objective was not wrapped"):
        study.optimize(objective, n_trials=1, callbacks=[plain])
    stale = study.ask()  # trial 1, left RUNNING (its worker died): it does not matter ...
    explore = ExplorationCallback()
    study.optimize(explore.wrap(objective), n_trials=2, callbacks=[explore])
    assert explore.numbers == [0, 2]  # trial 0 replayed, trial 3 pruned
    with pytest.raises(StudyShapeError, match=r"completes after trial 2 .* one worker"):
        explore.wrap(objective)(stale)  # ... until it completes after a later trial counted


def test_a_trial_optuna_fails_after_recording_is_dropped(tmp_path):
    url = f"sqlite:///{tmp_path / 'drop.db'}"
    study = _study(url, "drop")
    explore = ExplorationCallback()
    study.optimize(explore.wrap(objective), n_trials=3, callbacks=[explore])
    kept = list(explore.numbers)
    trial = study.ask()
    trial.suggest_float("x", -5.0, 5.0)
    trial.suggest_float("lr", 1e-4, 1.0, log=True)
    trial.suggest_int("n", 1, 10)
    trial.suggest_categorical("opt", ["adam", "sgd", "rms"])
    explore._record(trial)  # recorded as if it completed ...
    assert explore.numbers == [*kept, trial.number]
    frozen = study.tell(trial, state=TrialState.FAIL)  # ... then Optuna failed it
    explore(study, frozen)
    assert explore.numbers == kept and len(explore.tracker) == len(kept)


def test_the_callback_needs_no_torch():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import optuna\n"
        "from boexplore.integrations.optuna import ExplorationCallback\n"
        "optuna.logging.set_verbosity(optuna.logging.WARNING)\n"
        "cb = ExplorationCallback()\n"
        "study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))\n"
        "study.optimize(cb.wrap(lambda t: t.suggest_float('x', 0, 1) ** 2), n_trials=5,"
        " callbacks=[cb])\n"
        "print(study.trials[-1].user_attrs['boexplore_t'])\n"
        "try:\n    import torch\nexcept ImportError:\n    print('control')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.split() == ["5", "control"]
