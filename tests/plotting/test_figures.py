import json

import matplotlib.pyplot as plt
import pytest
from synthetic import synthetic_metrics, synthetic_trace, zero_oe_estimator

from boexplore.analysis.paper1.claims import build_claims
from boexplore.analysis.pipeline import run_analysis, write_tables
from boexplore.analysis.tours import trace_tour_quality
from boexplore.metrics.oe_baseline import UniformOEBaseline
from boexplore.plotting import (
    method_colors,
    plot_exploration_vs_dimension,
    plot_otsd_vs_oe,
    plot_performance_vs_exploration,
    plot_taxonomy_hasse,
    plot_tour_quality,
    plot_trajectories,
    plot_variant_effects,
    save_figure,
)
from boexplore.plotting.style import hash_color, method_order


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    levels = {"random": 1.0, "ucb_high": 0.8, "logei": 0.5, "greedy": 0.1, "ts": 0.9}
    m = synthetic_metrics(
        problems=(("a", 2), ("b", 60)),
        levels=levels,
        seeds=3,
        T=8,
        variants={"logei_q2": ("logei", 2, False, False, 0.1)},
    )
    r = run_analysis(m, {"n_boot": 50}, baseline=UniformOEBaseline(1, estimator=zero_oe_estimator))
    tables = write_tables(r, tmp_path_factory.mktemp("tables"))
    return r, [tables["cells"]]


def _check(paths, tmp_path, name, inputs):
    png, pdf, side = paths
    assert png == tmp_path / f"{name}.png" and png.stat().st_size > 1000
    assert pdf.exists() and pdf.stat().st_size > 1000
    rec = json.loads(side.read_text())
    assert rec["inputs"][0]["path"] == str(inputs[0]) and len(rec["inputs"][0]["sha256"]) == 64
    assert rec["config"] == {"k": 1}
    assert not plt.get_fignums()


def test_all_figures_write_png_pdf_sidecar(result, tmp_path):
    r, inputs = result
    cfg = {"k": 1}
    calls = {
        "traj": lambda p: plot_trajectories(r.trajectories, p, inputs, cfg),
        "scatter": lambda p: plot_otsd_vs_oe(r.cells, r.correlation, p, inputs, cfg),
        "dim": lambda p: plot_exploration_vs_dimension(r.cells, p, inputs, cfg),
        "variants": lambda p: plot_variant_effects(r.variant_diffs, p, inputs, cfg),
        "perf": lambda p: plot_performance_vs_exploration(
            r.cells, p, inputs, cfg, shape=r.performance_shape
        ),
        "hasse": lambda p: plot_taxonomy_hasse(r.taxonomy_pairs, p, inputs, cfg),
    }
    for name, fn in calls.items():
        _check(fn(tmp_path / f"{name}.png"), tmp_path, name, inputs)


def test_tour_figure_and_empty_inputs(tmp_path):
    paths = []
    for i in range(2):
        p = tmp_path / f"t{i}.parquet"
        synthetic_trace(3, 14, kind="cluster", seed=i).to_parquet(p)
        paths.append(p)
    tours = trace_tour_quality(paths, [6, 14])
    _check(
        plot_tour_quality(tours, tmp_path / "tours.png", paths[:1], {"k": 1}),
        tmp_path,
        "tours",
        paths[:1],
    )
    out = plot_tour_quality(tours.iloc[:0], tmp_path / "empty.png", paths[:1], {"k": 1})
    assert out[0].exists()
    import pandas as pd

    empty = pd.DataFrame(
        columns=["factor", "variant", "base", "level", "problem", "dim", "seed", "metric", "diff"]
    )
    assert plot_variant_effects(empty, tmp_path / "nov.png", paths[:1])[1].exists()


def test_method_colors_fixed_and_stable():
    c1 = method_colors(["random", "ts", "my_new_af"])
    c2 = method_colors(["my_new_af"])
    assert c1["random"] == "#7f7f7f" and c1["my_new_af"] == c2["my_new_af"]
    assert c1["my_new_af"] == hash_color("my_new_af") and c1["my_new_af"].startswith("#")
    assert hash_color("a") != hash_color("b")
    variant = method_colors(["logei_q4", "logei_tr"])
    assert variant["logei_q4"] != variant["logei_tr"] != "#1f77b4"
    assert variant == method_colors(["logei_tr", "logei_q4"])
    assert method_order(["zz", "greedy", "random"]) == ["random", "greedy", "zz"]


def test_save_figure_rejects_non_png(tmp_path):
    fig, _ = plt.subplots()
    with pytest.raises(ValueError, match=".png"):
        save_figure(fig, tmp_path / "x.pdf", [])
    plt.close(fig)


def test_claims_from_figure_fixture(result):
    claims = build_claims(result[0])
    ids = set(claims["claim_id"])
    assert {i for i in ids if i.startswith("P1-C")} == {f"P1-C{i}" for i in range(1, 9)}
    assert {i for i in ids if i.startswith("P1-U")} == {"P1-U1", "P1-U2", "P1-U3"}


def test_draw_figure_from_tables_on_disk(tmp_path):
    from boexplore.plotting.paper1 import draw_figure

    m = synthetic_metrics(
        problems=(("a", 2), ("b", 60)),
        levels={"random": 1.0, "pi": 0.4, "greedy": 0.1},
        seeds=2,
        T=6,
    )
    r = run_analysis(m, {"n_boot": 20}, baseline=UniformOEBaseline(1, estimator=zero_oe_estimator))
    t = write_tables(r, tmp_path / "tables")
    trace = tmp_path / "t.parquet"
    synthetic_trace(2, 6).to_parquet(trace)
    tours_csv = tmp_path / "tours.csv"
    trace_tour_quality([trace], [4, 6]).to_csv(tours_csv, index=False)
    inputs = {
        "exploration_trajectories": {"trajectories": t["trajectories"]},
        "otsd_vs_oe": {"cells": t["cells"], "correlation": t["correlation"]},
        "exploration_vs_dimension": {"cells": t["cells"]},
        "variant_effects": {"diffs": t["variant_diffs"]},
        "performance_vs_exploration": {"cells": t["cells"], "shape": t["performance_shape"]},
        "taxonomy_hasse": {"pairs": t["taxonomy_pairs"]},
        "tour_quality": {"tours": tours_csv},
    }
    for name, inp in inputs.items():
        png, pdf, side = draw_figure(name, inp, tmp_path / "fig" / f"{name}.png", {"n_boot": 20})
        assert png.exists() and pdf.exists() and side.exists()
    with pytest.raises(ValueError, match="unknown paper-1 figure"):
        draw_figure("nope", {}, tmp_path / "x.png")


def test_one_colour_registry_across_both_papers():
    from boexplore.plotting.paper2 import colour
    from boexplore.plotting.style import ALIASES, KNOWN_COLORS, PAPER1_COLORS, PAPER2_COLORS

    # paper-2 figures draw from the same registry as paper 1
    for label in (*PAPER2_COLORS, *ALIASES, "random"):
        assert colour(label) == KNOWN_COLORS[label]
    # distinct methods never share a colour across the papers (the old gp_ts/ucb_high clash)
    distinct = {**PAPER1_COLORS, **PAPER2_COLORS}
    assert len(set(distinct.values())) == len(distinct)
    for alias, target in ALIASES.items():
        assert KNOWN_COLORS[alias] == PAPER1_COLORS[target]
    assert colour("gp_ts") == KNOWN_COLORS["ts"] != KNOWN_COLORS["ucb_high"]
    # every paper-2 method the schema allows has a registered colour (no hash fallback)
    from boexplore.schema import load_schema

    schema = load_schema("parametric")
    e4 = schema["properties"]["e4"]["properties"]["methods"]["items"]["enum"]
    methods = [*schema["$defs"]["method"]["enum"], *e4]
    assert set(methods) <= set(KNOWN_COLORS), set(methods) - set(KNOWN_COLORS)


def test_otsd_vs_oe_draws_the_oe_metric_the_analysis_decides_on(tmp_path):
    """A tier deciding on the authors' OE has no ``oe_rel`` in its cells: the scatter uses
    the config's OE metric (it failed with KeyError 'oe_rel' before)."""
    from boexplore.plotting.paper1 import draw_figure

    m = synthetic_metrics(
        problems=(("a", 2), ("b", 3)), levels={"random": 1.0, "pi": 0.4, "greedy": 0.1}, seeds=2
    )
    section = {"n_boot": 20, "exploration_metrics": ["otsd_norm", "oe_ref_rel"]}
    r = run_analysis(m, section, baseline=UniformOEBaseline(1, estimator=zero_oe_estimator))
    t = write_tables(r, tmp_path / "tables")
    assert "oe_rel" not in r.cells.columns and "oe_ref_rel" in r.cells.columns
    inputs = {"cells": t["cells"], "correlation": t["correlation"]}
    png, _, side = draw_figure("otsd_vs_oe", inputs, tmp_path / "fig" / "s.png", section)
    assert png.exists() and json.loads(side.read_text())["config"]["exploration_metrics"][1] == (
        "oe_ref_rel"
    )
