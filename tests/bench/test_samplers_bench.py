"""boexplore.bench.samplers and sampler_report: Optuna's samplers and Ax's default strategy
beside our methods (a tiny run, the page, the committed rows, tables and figure)."""

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boexplore.bench import sampler_report as sr
from boexplore.bench import samplers as sb
from boexplore.bench.sampler_placement import Rule
from boexplore.metrics.oe_baseline import UniformOEBaseline

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / sb.PAGE
ROWS = REPO / sb.ROWS
FIGURE = REPO / sb.FIGURE


def test_final_metrics_tell_concentrated_from_uniform_points():
    rng = np.random.default_rng(0)
    base = UniformOEBaseline(n_rep=4, seed=0)
    uniform = sb.final_metrics(rng.random((40, 3)), base)
    tight = sb.final_metrics(0.5 + 0.01 * rng.random((40, 3)), base)
    assert abs(uniform[1]) < 0.5 and tight[1] < -3  # oe_rel: ~0 for uniform points
    assert tight[0] < 0.1 * uniform[0]


def test_a_tiny_run_writes_rows_tables_figure_and_page_and_resumes(tmp_path, capsys, monkeypatch):
    pytest.importorskip("optuna")
    monkeypatch.chdir(tmp_path)  # the rule is read from config/replicate.yaml
    (tmp_path / "config").symlink_to(REPO / "config")
    rows_csv, out = tmp_path / "t" / "runs.csv", tmp_path / "s.md"
    figure = tmp_path / "figures" / "samplers" / "f.png"
    argv = ["--problems", "lo_branin2", "--samplers", "random", "qmc", "--seeds", "2",
            "--methods", "random", "logei", "--rows", str(rows_csv), "--out", str(out),
            "--figure", str(figure), "--traces", str(REPO / "data/replicate/traces")]  # fmt: skip
    assert sb.main(argv) == 0
    rows = pd.read_csv(rows_csv)
    assert len(rows) == 16 + 4  # our 2 methods' 8 committed seeds, 2 seeds x 2 samplers
    assert (rows_csv.parent / "samplers_summary.csv").is_file()
    placed = pd.read_csv(rows_csv.parent / "samplers_placement.csv")
    assert set(placed["subset"]) == {"low-d"} and len(placed) == 2 * (2 + 2)
    assert figure.is_file() and figure.with_suffix(".json").is_file()
    text = out.read_text()
    assert "**Optuna QMC**" in text and "figures/samplers/f.png" in text
    capsys.readouterr()
    assert sb.main(argv) == 0  # a re-run keeps the finished runs ...
    assert "s CPU" not in capsys.readouterr().out
    again = pd.read_csv(rows_csv)
    key = ["source", "method", "seed"]
    pd.testing.assert_frame_equal(
        again.sort_values(key).reset_index(drop=True), rows.sort_values(key).reset_index(drop=True)
    )
    assert sb.main([*argv, "--fresh", "--samplers", "random", "--seeds", "1"]) == 0
    assert capsys.readouterr().out.count("s CPU") == 1  # ... --fresh does not
    with pytest.raises(ValueError, match="unknown sampler"):
        sb.make_sampler("nope", 0)


@pytest.mark.slow
def test_an_ax_run_is_its_default_strategy_seeded_and_gives_the_committed_row():
    pytest.importorskip("ax")
    row = sb.run_sampler("lo_branin2", "ax", 0, UniformOEBaseline(n_rep=16, seed=0))
    rows = pd.read_csv(ROWS)
    (committed,) = rows[(rows["source"] == "ax") & (rows["problem"] == "lo_branin2")
                        & (rows["seed"] == 0)].itertuples()  # fmt: skip
    assert row["source"] == "ax" and row["budget"] == 40
    assert row["otsd_norm"] == pytest.approx(committed.otsd_norm, rel=1e-5)
    assert row["oe_rel"] == pytest.approx(committed.oe_rel, rel=1e-5, abs=1e-5)


def test_the_committed_page_and_tables_are_generated_from_the_committed_rows():
    rows = pd.read_csv(ROWS)
    rule = Rule.of_config(REPO / "config" / "replicate.yaml")
    summary, placed = sr.tables_of(rows, rule, sb.OURS)
    pd.testing.assert_frame_equal(summary, pd.read_csv(ROWS.parent / "samplers_summary.csv"),
                                  check_exact=False, rtol=1e-5)  # fmt: skip
    committed = pd.read_csv(ROWS.parent / "samplers_placement.csv", keep_default_na=False)
    assert placed.fillna("").astype(str).equals(committed.astype(str))
    figure = f"figures/{FIGURE.parent.name}/{FIGURE.name}"
    assert PAGE.read_text() == sr.render(
        rows, summary, placed, sb.COMMAND, figure, rule, sb.PROBLEMS
    )
    side = json.loads(FIGURE.with_suffix(".json").read_text())
    assert side["inputs"][0]["sha256"] == hashlib.sha256(ROWS.read_bytes()).hexdigest()


def test_the_committed_measurement_covers_the_issue_and_its_control_holds():
    rows = pd.read_csv(ROWS)
    samplers = rows[rows["source"] != "ours"]
    assert set(map(tuple, samplers[["source", "method"]].drop_duplicates().values)) == set(
        sr.LABELS
    )
    assert samplers.groupby(["source", "problem", "method"])["seed"].nunique().min() >= 5
    assert samplers.loc[samplers["d"] >= 50, "problem"].nunique() >= 1
    assert samplers.loc[samplers["d"] <= 10, "problem"].nunique() >= 3
    placed = pd.read_csv(ROWS.parent / "samplers_placement.csv", keep_default_na=False)
    checked, others = 0, []
    for _, grp in placed.groupby(["subset", "metric"]):
        random_class = grp.loc[(grp["source"] == "ours") & (grp["method"] == "random"), "placed"]
        for _, r in grp[grp["source"] != "ours"].iterrows():
            holds = sr.control_holds(r["placed"], random_class.iloc[0])
            if (r["source"], r["method"]) == ("optuna", "random"):
                assert holds, r.to_dict()  # the control: uniform points as our random search
                checked += 1
            else:
                others.append(holds)
    assert checked == 4  # low-d / high-d x OTSD / OE
    assert not all(others)  # the control can fail on these data: some sampler is separated
