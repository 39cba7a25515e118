"""A real Ax Client loop (Sobol, then its default BoTorch model): live metrics in the trials'
run metadata, `boexplore diagnose --ax-snapshot`, the parameter rule and refused shapes."""

import logging
import math
import time
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ax")

from ax.api.client import Client  # noqa: E402
from ax.api.configs import ChoiceParameterConfig, RangeParameterConfig  # noqa: E402
from ax.core.arm import Arm  # noqa: E402

from boexplore.cli import main  # noqa: E402
from boexplore.integrations.ax import (  # noqa: E402
    AxExploration,
    AxSpace,
    experiment_points,
    load_snapshot_points,
)
from boexplore.integrations.common import ONE_HOT, StudyShapeError  # noqa: E402

logging.getLogger("ax").setLevel(logging.ERROR)
N_TRIALS, N_INIT = 10, 5


def loss(p):
    return (p["x"] - 1.0) ** 2 + math.log10(p["lr"]) ** 2


def _client(name="demo", parameters=None):
    client = Client(random_seed=0)
    parameters = parameters or [
        RangeParameterConfig(name="x", bounds=(-5.0, 5.0), parameter_type="float"),
        RangeParameterConfig(name="lr", bounds=(1e-4, 1.0), parameter_type="float", scaling="log"),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client.configure_experiment(name=name, parameters=parameters)
    client.configure_optimization(objective="-loss")
    return client


@pytest.fixture(scope="module")
def ax_loop(tmp_path_factory):
    """10 trials: Ax's initialisation (centre, Sobol), then its BoTorch model; tracked live."""
    client = _client()
    client.configure_generation_strategy(initialization_budget=N_INIT, initialization_random_seed=0)
    explore = AxExploration()
    start = time.process_time()  # CPU seconds: the machine may be shared
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(N_TRIALS):
            for index, parameters in client.get_next_trials(max_trials=1).items():
                client.complete_trial(trial_index=index, raw_data={"loss": loss(parameters)})
            explore.observe(client)
    seconds = time.process_time() - start
    snapshot = tmp_path_factory.mktemp("ax") / "snapshot.json"
    client.save_to_json_file(str(snapshot))
    return client, explore, snapshot, seconds


def test_the_loop_is_sobol_then_botorch_and_stores_metrics_equal_to_boexplore_metrics(
    ax_loop, tmp_path
):
    client, explore, snapshot, seconds = ax_loop
    assert seconds < 60
    nodes = client.summarize()["generation_node"].tolist()
    assert "MBM" in nodes[-1] and all("MBM" not in n for n in nodes[:N_INIT]), nodes
    assert explore.indices == list(range(N_TRIALS))
    points = load_snapshot_points(snapshot)  # the metadata survived the snapshot
    pts, table = tmp_path / "points.csv", tmp_path / "metrics.csv"
    args = ["diagnose", "--ax-snapshot", str(snapshot), "--write-points", str(pts)]
    assert main([*args, "-o", str(tmp_path / "tl.csv")]) == 0
    assert main(["metrics", str(pts), "-o", str(table), "--oe-reps", "0"]) == 0
    ref = pd.read_csv(table)
    np.testing.assert_allclose(points.stored["boexplore_otsd"], ref["otsd"], rtol=1e-12)
    np.testing.assert_allclose(points.stored["boexplore_otsd_norm"], ref["otsd_norm"], rtol=1e-12)
    oe = points.stored["boexplore_oe"]
    np.testing.assert_array_equal(np.isnan(oe), ref["oe_kl"].isna())
    np.testing.assert_allclose(oe[~np.isnan(oe)], ref["oe_kl"].dropna(), rtol=1e-9)
    # the points are the arms' parameters under the stated rule
    arms = pd.read_csv(pts)
    first = client.summarize().iloc[0]
    assert math.isclose(arms["x_1"].iloc[0], (first["x"] + 5.0) / 10.0)  # columns: lr, x
    assert math.isclose(
        arms["x_0"].iloc[0], (math.log(first["lr"]) - math.log(1e-4)) / math.log(1e4)
    )
    # control: reversed order gives other metrics, so the comparison can fail
    arms.iloc[::-1].to_csv(tmp_path / "rev.csv", index=False)
    main(["metrics", str(tmp_path / "rev.csv"), "-o", str(table), "--oe-reps", "0"])
    assert not np.allclose(points.stored["boexplore_otsd"], pd.read_csv(table)["otsd"])


def test_diagnose_on_the_snapshot(ax_loop, tmp_path, capsys):
    client, explore, snapshot, _ = ax_loop
    out = tmp_path / "tl.csv"
    assert main(["diagnose", "--ax-snapshot", str(snapshot), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{N_TRIALS} complete trials counted" in err and "minimised" in err
    assert "agree with the recomputed metrics" in err
    tl = pd.read_csv(out)
    assert tl["trial"].tolist() == explore.indices
    best = min(loss(p) for p in client.summarize()[["x", "lr"]].to_dict("records"))
    assert math.isclose(tl["best"].iloc[-1], -best, rel_tol=1e-6)  # summarize() rounds
    for bad, message in (
        (["--ax-snapshot", str(tmp_path / "none.json")], "no such file"),
        (["--ax-snapshot", str(out)], "not an Ax Client snapshot"),
        (["--ax-snapshot", str(snapshot), "--study", "x"], "--study needs --optuna-storage"),
    ):
        assert main(["diagnose", *bad]) == 2
        assert message in capsys.readouterr().err


def test_int_choice_and_fixed_parameters_follow_the_rule():
    client = _client(
        "mixed",
        [
            RangeParameterConfig(name="n", bounds=(1, 11), parameter_type="int"),
            RangeParameterConfig(
                name="lr", bounds=(1e-3, 1e-1), parameter_type="float", scaling="log"
            ),
            ChoiceParameterConfig(name="opt", values=["adam", "sgd", "rms"], parameter_type="str"),
        ],
    )
    for params in ({"n": 6, "lr": 1e-2, "opt": "sgd"}, {"n": 1, "lr": 1e-3, "opt": "rms"}):
        client.complete_trial(client.attach_trial(params), raw_data={"loss": 1.0})
    explore = AxExploration()
    explore.observe(client)
    points = experiment_points(client._experiment)
    assert points.columns == ["lr", "n", "opt=adam", "opt=sgd", "opt=rms"]
    np.testing.assert_allclose(points.X[0], [0.5, 0.5, 0.0, ONE_HOT, 0.0])
    np.testing.assert_allclose(points.X[1], [0.0, 0.0, 0.0, 0.0, ONE_HOT])
    assert math.isclose(np.linalg.norm(points.X[0, 2:] - points.X[1, 2:]), 1.0)
    np.testing.assert_allclose(points.stored["boexplore_otsd"], explore.tracker.otsd_history)


def test_refused_experiment_shapes_are_named():
    client = _client(
        "cond",
        [
            ChoiceParameterConfig(
                name="kind",
                values=["linear", "tree"],
                parameter_type="str",
                dependent_parameters={"tree": ["depth"], "linear": ["alpha"]},
            ),
            RangeParameterConfig(name="depth", bounds=(1, 8), parameter_type="int"),
            RangeParameterConfig(name="alpha", bounds=(0.0, 1.0), parameter_type="float"),
        ],
    )
    client.complete_trial(client.attach_trial({"kind": "tree", "depth": 3}), raw_data={"loss": 1})
    with pytest.raises(StudyShapeError, match="conditional"):
        AxExploration().observe(client)
    plain = _client("batch")
    index = plain.attach_trial({"x": 0.0, "lr": 0.01})
    plain.complete_trial(index, raw_data={"loss": 1.0})
    assert len(experiment_points(plain._experiment).numbers) == 1  # control: one arm passes
    batch = plain._experiment.new_batch_trial()
    batch.add_arms_and_weights([Arm({"x": 1.0, "lr": 0.1}), Arm({"x": 2.0, "lr": 0.1})])
    batch.mark_running(no_runner_required=True).mark_completed()
    with pytest.raises(StudyShapeError, match="2 arms"):
        experiment_points(plain._experiment)
    narrowed = _client("narrow")
    narrowed.complete_trial(narrowed.attach_trial({"x": 4.0, "lr": 0.01}), raw_data={"loss": 1})
    explore = AxExploration()
    explore.observe(narrowed)
    narrowed._experiment.search_space.parameters["x"].update_range(lower=-1.0, upper=1.0)
    with pytest.raises(StudyShapeError, match="outside"):
        experiment_points(narrowed._experiment)
    with pytest.raises(StudyShapeError, match="search space .* changed"):
        explore.observe(narrowed)


def test_live_counting_refuses_an_out_of_order_completion():
    client = _client("order")
    first = client.attach_trial({"x": 0.0, "lr": 0.01})
    second = client.attach_trial({"x": 1.0, "lr": 0.1})
    client.complete_trial(second, raw_data={"loss": 1.0})
    explore = AxExploration()
    explore.observe(client)
    client.complete_trial(first, raw_data={"loss": 2.0})
    with pytest.raises(StudyShapeError, match="index order"):
        explore.observe(client)
    assert AxSpace.of(client._experiment.search_space).d == 2
