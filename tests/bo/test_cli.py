"""CLI: `boexplore run` writes a trace parquet and removes its checkpoint; `methods` lists."""

from __future__ import annotations

import pandas as pd

from boexplore.cli import main


def test_run_writes_trace(tmp_path, capsys):
    out = tmp_path / "seed0.parquet"
    rc = main(["run", "--problem", "branin", "--dim", "2", "--method", "ucb(beta=16)+q2",
               "--method-label", "ucb_high", "--seed", "0", "--budget", "8", "--n-init", "4",
               "--out", str(out), "--quiet",
               "--settings", '{"num_restarts": 2, "raw_samples": 32, "mc_samples": 16}'])  # fmt: skip
    assert rc == 0
    trace = pd.read_parquet(out)
    assert len(trace) == 8 and set(trace["method"]) == {"ucb_high"}
    assert set(trace["method_spec"]) == {"ucb(beta=16)+q2"}
    assert not (tmp_path / "seed0.parquet.ckpt").exists()
    assert capsys.readouterr().err == ""


def test_bad_method_is_a_clean_error(tmp_path, capsys):
    rc = main(["run", "--problem", "branin", "--dim", "2", "--method", "nope", "--seed", "0",
               "--budget", "5", "--out", str(tmp_path / "x.parquet")])  # fmt: skip
    assert rc == 2
    assert "valid methods" in capsys.readouterr().err


def test_methods_lists(capsys):
    assert main(["methods"]) == 0
    assert "kg" in capsys.readouterr().out


def test_run_from_problem_file(tmp_path):
    from boexplore.problems import get_problem, save_instance

    path = save_instance(get_problem("ackley", 3), tmp_path / "ackley3.json")
    out = tmp_path / "t.parquet"
    args = ["run", "--problem-file", str(path), "--method", "sobol", "--seed", "2",
            "--budget", "10", "--n-init", "5", "--out", str(out), "--quiet"]  # fmt: skip
    assert main(args) == 0
    trace = pd.read_parquet(out)
    assert set(trace["problem"]) == {"ackley3"} and trace.shape[0] == 10
    assert [c for c in trace.columns if c.startswith("x_")] == ["x_0", "x_1", "x_2"]


def test_initial_design_default_is_d_aware_and_large_designs_are_refused(tmp_path, capsys):
    from boexplore.bo.design import default_n_init

    assert default_n_init(2, 30) == 5 and default_n_init(6, 30) == 6
    assert default_n_init(50, 60) == 12  # not the old all-Sobol run (2 d = 100 > 60)
    assert default_n_init(180, 500) == 100 and default_n_init(2, 8) == 2
    out = tmp_path / "t.parquet"
    args = ["run", "--problem", "branin", "--dim", "2", "--method", "sobol", "--seed", "0",
            "--budget", "10", "--n-init", "6", "--out", str(out), "--quiet"]  # fmt: skip
    assert main(args) == 2
    assert "--allow-large-init" in capsys.readouterr().err and not out.exists()
    assert main([*args, "--allow-large-init"]) == 0
    assert pd.read_parquet(out)["is_initial"].sum() == 6
