"""boexplore.bench.samplers: Optuna's samplers beside our methods (placement, page, a tiny run)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boexplore.bench import samplers as sb
from boexplore.metrics.oe_baseline import UniformOEBaseline

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "samplers-exploration.md"


def _rows():
    rows = []
    for problem, scale in (("lo_branin2", 1.0), ("hi_hartmann6_d50", 2.0)):
        for source, method, value in (
            ("ours", "random", 1.0),
            ("ours", "ts", 0.5),
            ("optuna", "tpe", 0.8),
            ("optuna", "random", 1.1),
        ):
            for seed in range(3):
                rows.append(
                    dict(source=source, problem=problem, d=2, budget=40, method=method,
                         seed=seed, otsd_norm=scale * value, oe_rel=-value, cpu_s=0.1)
                )  # fmt: skip
    return pd.DataFrame(rows)


def test_placement_divides_by_our_random_search_and_orders_by_it():
    wide = sb.placement(_rows())
    ratio = wide["x random"]
    assert list(ratio.index) == [
        ("optuna", "random"),
        ("ours", "random"),
        ("optuna", "tpe"),
        ("ours", "ts"),
    ]
    np.testing.assert_allclose(ratio.loc[("ours", "ts")], [0.5, 0.5])  # the scale cancels
    np.testing.assert_allclose(wide["oe_rel"].loc[("optuna", "tpe")], [-0.8, -0.8])
    page = sb.render(_rows(), "cmd")
    assert "| **tpe** (Optuna) | 0.80 | 0.80 |" in page and "| ts | 0.50 | 0.50 |" in page


def test_final_metrics_tell_concentrated_from_uniform_points():
    rng = np.random.default_rng(0)
    base = UniformOEBaseline(n_rep=4, seed=0)
    uniform = sb.final_metrics(rng.random((40, 3)), base)
    tight = sb.final_metrics(0.5 + 0.01 * rng.random((40, 3)), base)
    assert abs(uniform[1]) < 0.5 and tight[1] < -3  # oe_rel: ~0 for uniform points
    assert tight[0] < 0.1 * uniform[0]


def test_a_tiny_run_writes_rows_and_the_page_and_resumes(tmp_path, capsys):
    pytest.importorskip("optuna")
    out = tmp_path / "s.md"
    argv = ["--problems", "lo_branin2", "--samplers", "random", "qmc", "--seeds", "2"]
    argv += [
        "--methods",
        "random",
        "--out",
        str(out),
        "--traces",
        str(REPO / "data/replicate/traces"),
    ]
    assert sb.main(argv) == 0
    rows = pd.read_csv(out.with_suffix(".csv"))
    assert len(rows) == 8 + 4  # our random search's 8 committed seeds, 2 seeds x 2 samplers
    ratio = sb.placement(rows)["x random"]["lo_branin2"]
    assert 0.7 < ratio.loc[("optuna", "random")] < 1.3  # the control: uniform vs uniform
    assert "**qmc** (Optuna)" in out.read_text()
    capsys.readouterr()
    assert sb.main(argv) == 0  # a re-run keeps the finished Optuna runs ...
    assert "s CPU" not in capsys.readouterr().out
    again = pd.read_csv(out.with_suffix(".csv"))
    key = ["source", "method", "seed"]
    pd.testing.assert_frame_equal(
        again.sort_values(key).reset_index(drop=True), rows.sort_values(key).reset_index(drop=True)
    )
    assert sb.main([*argv, "--fresh", "--samplers", "random", "--seeds", "1"]) == 0
    assert capsys.readouterr().out.count("s CPU") == 1  # ... --fresh does not
    with pytest.raises(ValueError, match="unknown sampler"):
        sb.make_sampler("nope", 0)


def test_the_committed_page_is_rendered_from_the_committed_rows():
    rows = pd.read_csv(PAGE.with_suffix(".csv"))
    assert PAGE.read_text() == sb.render(rows, "python -m boexplore.bench.samplers")
    assert rows.groupby(["source", "problem", "method"])["seed"].nunique().min() >= 5
    assert rows.loc[rows["d"] >= 50, "problem"].nunique() >= 1
    assert rows.loc[rows["d"] < 50, "problem"].nunique() >= 3
