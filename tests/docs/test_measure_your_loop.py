"""docs/measure-your-loop.md: its Python examples and its commands run as they stand."""

import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from boexplore.cli import main

PAGE = Path(__file__).resolve().parents[2] / "docs" / "measure-your-loop.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", PAGE.read_text(), flags=re.S)


def _python_block(marker: str) -> str:
    (code,) = [b for b in _blocks("python") if marker in b]
    return code


def test_the_optuna_example_and_its_commands_run(tmp_path, monkeypatch, capsys):
    pytest.importorskip("optuna")
    monkeypatch.chdir(tmp_path)
    exec(compile(_python_block("import optuna"), str(PAGE), "exec"), {"__name__": "__page__"})
    printed = capsys.readouterr().out
    assert printed.count("boexplore_otsd_norm") == 3
    commands = [line[2:] for b in _blocks("console") for line in b.splitlines()]
    commands = [c for c in commands if "--ax-snapshot" not in c]  # the Ax example's
    assert [c.split()[:2] for c in commands] == [
        ["boexplore", "diagnose"],
        ["boexplore", "metrics"],
    ]
    for command in commands:
        assert main(shlex.split(command)[1:]) == 0, command
    assert len(pd.read_csv("demo_timeline.csv")) == 30
    assert len(pd.read_csv("demo_metrics.csv")) == 30
    assert Path("demo.png").stat().st_size > 1000
    assert "agree with the recomputed metrics" in capsys.readouterr().err


@pytest.mark.slow
def test_the_botorch_example_runs(tmp_path, monkeypatch, capsys):
    pytest.importorskip("botorch")
    monkeypatch.chdir(tmp_path)
    exec(compile(_python_block("import torch"), str(PAGE), "exec"), {"__name__": "__page__"})
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10 and lines[-1].startswith("t=15 OTSD=")


@pytest.mark.slow
def test_the_ax_example_and_its_command_run(tmp_path, monkeypatch, capsys):
    pytest.importorskip("ax")
    monkeypatch.chdir(tmp_path)
    exec(compile(_python_block("from ax.api"), str(PAGE), "exec"), {"__name__": "__page__"})
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 8 and "'boexplore_t': 8" in lines[-1]
    (command,) = [c[2:] for b in _blocks("console") for c in b.splitlines() if "--ax-snapshot" in c]
    assert main(shlex.split(command)[1:]) == 0
    assert len(pd.read_csv("ax_timeline.csv")) == 8
    assert "agree with the recomputed metrics" in capsys.readouterr().err
