"""Wide figures reflow: the trajectories figure wraps problems into rows, timings are capped."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pandas as pd

from boexplore.plotting.exploration import TRAJ_COLS, plot_trajectories
from boexplore.plotting.workflow_figures import plot_run_timings


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) in pixels from the PNG header."""
    w, h = struct.unpack(">II", path.read_bytes()[16:24])
    return w, h


def test_trajectories_wrap_many_problems(tmp_path: Path) -> None:
    rows = []
    for p in range(7):
        for metric in ("otsd_norm", "oe_rel"):
            for method in ("random", "logei"):
                n = np.arange(1, 11)
                med = np.linspace(0, 1, 10) * (p + 1)
                rows.append(pd.DataFrame({"problem": f"p{p}", "dim": p + 2, "metric": metric,
                                          "method": method, "n": n, "median": med,
                                          "ci_low": med - 0.1, "ci_high": med + 0.1}))  # fmt: skip
    traj = pd.concat(rows, ignore_index=True)
    few, many = tmp_path / "few.png", tmp_path / "many.png"
    plot_trajectories(traj[traj["problem"].isin(["p0", "p1"])], few)
    plot_trajectories(traj, many)
    (_, h_few), (w_many, h_many) = png_size(few), png_size(many)
    assert TRAJ_COLS == 3
    assert w_many < 1600, w_many  # 7 problems in one row would be ~2,800 px
    assert h_many > 2 * h_few  # three blocks of (OTSD, OE) rows


def test_run_timings_width_is_capped(tmp_path: Path) -> None:
    methods = [f"m{i}" for i in range(26)]
    summary = pd.DataFrame(
        [{"method": m, "dim": d, "fit_seconds_mean": 0.1 * (i + 1), "acq_seconds_mean": 0.2}
         for i, m in enumerate(methods) for d in (2, 6, 10, 20, 50, 100, 180)]
    )  # fmt: skip
    out = tmp_path / "t.png"
    plot_run_timings(summary, out)
    assert png_size(out)[0] < 2100  # 12 in at 150 dpi plus the legend margin
