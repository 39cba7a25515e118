"""Figures a reader can take in: no empty panel, legends off the title and the data, legend
text that stays legible at the page's content width."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from boexplore.plotting import exploration, paper2  # noqa: E402


def _traj(dims: dict[str, int], budget: int = 30) -> pd.DataFrame:
    """OTSD and the authors' OE per problem; the OE exists only past d points."""
    rows = []
    for problem, d in dims.items():
        for metric in ("otsd_norm", "oe_ref_rel"):
            for method in ("random", "logei"):
                n = np.arange(1, budget + 1)
                med = np.where(n > d, np.linspace(0, 1, budget), np.nan) if metric == "oe_ref_rel" else n / budget  # fmt: skip
                rows.append(pd.DataFrame({"problem": problem, "dim": d, "metric": metric,
                                          "method": method, "n": n, "median": med,
                                          "ci_low": med - 0.1, "ci_high": med + 0.1}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def _bbox(fig: plt.Figure, artist) -> object:
    return artist.get_window_extent(fig.canvas.get_renderer())


def test_a_metric_undefined_on_a_problem_gets_a_note_not_an_empty_axis() -> None:
    fig = exploration.trajectories_figure(
        _traj({"low": 2, "high": 50}), ("otsd_norm", "oe_ref_rel")
    )
    axes = fig.axes[:4]  # (OTSD, OE) rows x (low, high) columns
    oe_low, oe_high = axes[2], axes[3]
    assert oe_low.lines and not oe_low.texts  # d = 2: the OE exists past 2 points
    assert not oe_high.lines  # d = 50 > budget 30: no OE value at all
    (note,) = oe_high.texts
    assert "more than d = 50 points" in note.get_text() and "30 evaluations" in note.get_text()
    assert list(oe_high.get_xticks()) == [] and not any(s.get_visible() for s in oe_high.spines.values())  # fmt: skip
    assert axes[1].get_title() == "high (d=50)"
    plt.close(fig)


def test_the_control_a_defined_metric_everywhere_has_no_note() -> None:
    fig = exploration.trajectories_figure(_traj({"a": 2, "b": 3}), ("otsd_norm", "oe_ref_rel"))
    assert all(ax.lines and not ax.texts for ax in fig.axes[:4])
    plt.close(fig)


def test_the_otsd_vs_oe_legend_leaves_the_title_free() -> None:
    methods = [f"m{i}" for i in range(18)]
    cells = pd.DataFrame([{"method": m, "dim": d, "otsd_norm": 0.01 * i + d / 1000, "oe_rel": -i}
                          for i, m in enumerate(methods) for d in (2, 3, 4, 5, 6, 12, 14)])  # fmt: skip
    fig = exploration.otsd_vs_oe_figure(cells, {"rho": 0.76, "ci_low": 0.68, "ci_high": 0.83, "n_cells": 114})  # fmt: skip
    fig.canvas.draw()
    ax = fig.axes[0]
    legend, title = _bbox(fig, ax.get_legend()), _bbox(fig, ax.title)
    assert not legend.overlaps(title)
    assert not legend.overlaps(_bbox(fig, ax))  # off the data
    assert legend.y1 <= fig.bbox.y1 + 1 and legend.x1 <= fig.bbox.x1 + 1  # inside the figure
    plt.close(fig)


def test_the_regret_legend_is_legible_and_below_the_panels(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setattr(paper2, "_save", lambda fig, paths: seen.append(fig))
    rows = [{"problem_key": pk, "method": m, "t": t, "R_mean": t * (1 + i), "R_se": 0.1,
             "ratio_mean": 1 + i} for pk in ("gp1d", "nn1d", "nn1d_twin", "nn2d")
            for i, m in enumerate(["gp_ts", "gp_ucb", "lfbo_ei", "nn_greedy", "nn_warm", "random",
                                   "rr_lfbo_ei", "rr_ts"]) for t in range(1, 51)]  # fmt: skip
    paper2.regret_curves(pd.DataFrame(rows), [])
    (fig,) = seen
    fig.canvas.draw()
    (legend,) = fig.legends
    assert min(t.get_fontsize() for t in legend.get_texts()) >= 12
    # shown at 800 px, the legend text is at least 10 px tall (it was about 6)
    px = legend.get_texts()[0].get_fontsize() / 72 * fig.dpi * 800 / (fig.get_figwidth() * fig.dpi)
    assert px >= 10, px
    box = _bbox(fig, legend)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert len(panels) == 4
    assert all(not box.overlaps(_bbox(fig, ax)) for ax in panels)
    assert box.y0 >= -1
    plt.close(fig)
