"""CLI usability: help descriptions, quiet broken pipes, oe_rel in `boexplore metrics`, flag hints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from boexplore.cli import build_parser, main

SRC = Path(__file__).resolve().parents[2] / "src"


def test_every_subcommand_has_a_description() -> None:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {"run", "methods", "metrics", "compare"} <= set(sub.choices)
    for name, parser in sub.choices.items():
        assert parser.description and len(parser.description) > 40, name


def test_pipe_into_head_prints_no_traceback(tmp_path: Path) -> None:
    np.save(tmp_path / "pts.npy", np.random.default_rng(0).random((3000, 2)))
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS="1")
    cmd = f"{sys.executable} -m boexplore metrics {tmp_path / 'pts.npy'} --oe-reps 0 | head -n 2"
    proc = subprocess.run(cmd, shell=True, capture_output=True, text=True, env=env, timeout=300)
    assert proc.stdout.splitlines()[0].startswith("n,otsd,otsd_norm")
    assert len(proc.stdout.splitlines()) == 2
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


def test_metrics_oe_rel_is_zero_for_uniform_and_negative_for_clusters(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    uniform, cluster = (
        rng.random((120, 2)),
        np.clip(0.5 + 0.01 * rng.standard_normal((120, 2)), 0, 1),
    )
    final = {}
    for name, X in (("uniform", uniform), ("cluster", cluster)):
        np.save(tmp_path / f"{name}.npy", X)
        out = tmp_path / f"{name}.csv"
        assert main(["metrics", str(tmp_path / f"{name}.npy"), "-o", str(out)]) == 0
        table = pd.read_csv(out)
        assert {"oe_rel", "oe_uniform"} <= set(table.columns)
        np.testing.assert_allclose(table["oe_rel"], table["oe_kl_all"] - table["oe_uniform"])
        final[name] = float(table["oe_rel"].iloc[-1])
    assert abs(final["uniform"]) < 0.3  # as spread as random search
    assert final["cluster"] < -3.0  # a tight cluster is far less spread


def test_metrics_oe_reps_zero_drops_oe_rel(tmp_path: Path) -> None:
    np.save(tmp_path / "p.npy", np.random.default_rng(0).random((10, 2)))
    out = tmp_path / "o.csv"
    assert main(["metrics", str(tmp_path / "p.npy"), "-o", str(out), "--oe-reps", "0"]) == 0
    assert "oe_rel" not in pd.read_csv(out).columns


def test_out_of_box_error_suggests_the_cli_flag(tmp_path: Path, capsys) -> None:
    np.save(tmp_path / "p.npy", np.random.default_rng(0).random((10, 3)) * 7)
    assert main(["metrics", str(tmp_path / "p.npy")]) == 2
    err = capsys.readouterr().err
    assert "--bounds LO HI" in err and "3 lows then 3 highs" in err
    assert "bounds=(2, d)" not in err
