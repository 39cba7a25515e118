"""ExplorationCallback in a plain loop and in run_bo; `boexplore diagnose`; advice; no-torch import."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boexplore.cli import main
from boexplore.diagnostics import OVER, UNDER, ExplorationCallback, StopRule, StopRun, suggest

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "data/replicate/traces/lo_branin2/logei/seeds0-3.parquet"  # four seeds


def _loop(cb, T=30, d=3, stagnate=True, seed=0):
    rng = np.random.default_rng(seed)
    X0 = rng.random((5, d))
    cb.observe(X0, -np.sum((X0 - 0.4) ** 2, axis=1))
    for t in range(5, T):
        x = 0.4 + 0.001 * rng.random(d) if stagnate else rng.random(d)
        y = -np.sum((x - 0.4) ** 2) if stagnate else float(t)  # improving when not stagnating
        step = cb.observe(x, y)
        if step.stop:
            return step
    return step


def test_plain_loop_callback_stops_a_stagnating_run():
    step = _loop(ExplorationCallback(3, stop_rule=StopRule(window=3)))
    assert step.stop and step.t < 30 and step.raw_state == UNDER
    step = _loop(ExplorationCallback(3, stop_rule=StopRule(window=3)), stagnate=False)
    assert not step.stop and step.t == 30  # control: an exploring, improving run goes on
    with pytest.raises(StopRun) as err:
        _loop(ExplorationCallback(3, stop_rule=StopRule(window=3), raise_on_stop=True))
    assert err.value.step.t < 30


def test_run_bo_callback_sees_every_evaluation():
    from boexplore.bo.loop import run_bo
    from boexplore.problems import get_problem

    problem = get_problem("branin", 2)
    cb = ExplorationCallback(2)
    trace = run_bo(problem, "random", seed=0, budget=12, n_init=4, callback=cb)
    assert len(cb.monitor) == len(trace) == 12
    assert cb.monitor.n_init == 4
    np.testing.assert_allclose(cb.monitor.tracker.points, trace[["x_0", "x_1"]].to_numpy())
    # stopping through the hook: a rule that fires at once ends the run early
    cb = ExplorationCallback(2, stop_rule=StopRule(window=1, otsd_frac=1e6), raise_on_stop=True)
    with pytest.raises(StopRun) as err:
        run_bo(problem, "random", seed=0, budget=12, n_init=4, callback=cb)
    assert len(err.value.trace) < 12


def test_advice_follows_the_state():
    assert suggest(OVER, "ts").suggestions == ("ts+raasp", "ts+tr")
    assert suggest(UNDER, "logei+tr").suggestions == ("logei",)
    assert suggest("balanced", "ts").suggestions == ("ts",)  # control: no change


def test_diagnose_cli_on_a_release_trace(tmp_path, capsys):
    out, fig = tmp_path / "tl.csv", tmp_path / "tl.png"
    assert (
        main(["diagnose", str(TRACE), "-o", str(out), "--figure", str(fig), "--method", "logei"])
        == 0
    )
    tl = pd.read_csv(out)  # seed 0 of the four
    assert len(tl) == 40 and tl["is_initial"].sum() == 10 and fig.stat().st_size > 1000
    err = capsys.readouterr().err
    assert "stop rule:" in err and "final state" in err
    # control: an always-improving objective never lets the rule fire
    df = pd.read_parquet(TRACE).query("seed == 1").assign(y=np.arange(40.0))
    df.to_csv(tmp_path / "up.csv", index=False)
    assert main(["diagnose", str(tmp_path / "up.csv"), "-o", str(tmp_path / "up_tl.csv")]) == 0
    assert "never fired" in capsys.readouterr().err


def test_diagnostics_import_without_torch_and_pandas():
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['pandas'] = None\n"
        "import numpy as np, boexplore.diagnostics as d\n"
        "m = d.ExplorationMonitor(3, stop_rule=d.StopRule())\n"
        "s = m.update(np.random.default_rng(0).random((8, 3)), np.zeros(8))\n"
        "print(s.t)\n"
        "try:\n    import boexplore.diagnostics.timeline\nexcept ImportError:\n    print('control')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.split() == ["8", "control"]
