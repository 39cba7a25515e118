"""``bench.kg_device``: refused with a message where there is no GPU, its command built on
``bench.kg``'s arguments, and its table code (columns, speed-ups, the gain-rule decision)
exercised with the GPU column on the CPU."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from boexplore.bench import kg, kg_device

TINY = {"fantasies": 4, "num_restarts": 2, "raw_samples": 16}

pytestmark = pytest.mark.usefixtures("quiet_single_thread")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_without_a_gpu_it_exits_with_a_message(tmp_path, capsys):
    out = tmp_path / "kg-gpu.md"
    assert kg_device.main(["--problems", "branin:2", "--out", str(out)]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--sequential", "--warm", "--control"])
def test_it_refuses_the_options_of_the_cpu_study_it_does_not_run(option, capsys):
    with pytest.raises(SystemExit) as refused:
        kg_device.main([option])
    assert refused.value.code == 2
    assert "Sobol states with its own control column" in capsys.readouterr().err


def test_it_parses_bench_kg_arguments_under_its_own_defaults(monkeypatch):
    parsed = []
    monkeypatch.setattr(kg_device, "run_cli", lambda args: parsed.append(args) or 0)
    assert kg_device.main(["--seeds", "2", "--no-reference"]) == 0
    (args,) = parsed
    assert args.sizes == [100, 300, 500] and str(args.out) == "docs/kg-gpu.md"
    assert args.seeds == 2 and args.no_reference  # bench.kg's options
    assert args.problems == kg.build_parser("d").parse_args([]).problems
    assert not hasattr(args, "device")  # the device is the command, not an option
    with pytest.raises(SystemExit):
        kg_device.main(["--device", "cuda"])


def test_bench_kg_points_device_cuda_to_the_gpu_command(tmp_path, capsys):
    assert kg.main(["--device", "cuda", "--out", str(tmp_path / "x.md")]) == 2
    assert "python -m boexplore.bench.kg_device" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    states = [kg_device.run_state("branin", 2, 8, s, TINY, accelerator="cpu") for s in (0, 1)]
    return pd.DataFrame([r for state in states for r in state])


def test_a_state_has_the_cpu_gpu_and_control_columns(rows):
    assert list(rows["column"].unique()) == ["cpu", "cuda", kg.RANDOM_POINT]
    assert (rows["fantasies"] == [4, 4, 0] * 2).all()
    assert rows[["cpu_s", "wall_s", "kg_ref", "v0"]].notna().all().all()
    gpu = rows[rows["column"] == "cuda"]
    assert (gpu["step_s"] == gpu["wall_s"]).all()  # GPU time is wall time
    cpu = rows[rows["column"] == "cpu"]
    assert (cpu["step_s"] == cpu["cpu_s"]).all()  # CPU time is CPU time


def test_report_has_speedups_and_the_gain_rule_decision(rows, tmp_path):
    table = kg_device.speedups(rows)
    assert list(table["n"]) == [8] and table["speedup"].iloc[0] > 0
    text = kg_device.render_markdown(rows, "t", "machine")
    assert "## Speed-up per step" in text and "## Decision (bench.kg's gain rule)" in text
    assert "Verdict:" in text
    csv = tmp_path / "a.csv"
    rows.to_csv(csv, index=False)
    out = tmp_path / "report.md"
    assert kg_device.main(["--report", str(csv), "--out", str(out)]) == 0
    assert "| branin | 2 | 8 | cuda | 2 |" in out.read_text()
