"""Wide tables as a summary plus a CSV; paper 2's per-arm rows named by their arm."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from boexplore.reporting import results_text as rt
from boexplore.reporting.wide_tables import coverage_summary, read_pipe_table, table_as_csv

REPO = Path(__file__).resolve().parents[2]


def test_a_pipe_table_reads_back_with_empty_cells_missing(tmp_path: Path) -> None:
    table = read_pipe_table("x\n| a | b |\n|---|---|\n| 1 |  |\n| 2 | z |\n")
    assert list(table.columns) == ["a", "b"]
    assert table["a"].tolist() == [1, 2] and pd.isna(table["b"][0]) and table["b"][1] == "z"
    with pytest.raises(ValueError, match="not a Markdown pipe table"):
        read_pipe_table("| a | b |\n| 1 | 2 |\n")
    md = tmp_path / "t.md"
    md.write_text("| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert table_as_csv(md) == "a,b\n1,2\n"


def test_the_coverage_summary_fits_a_page_and_links_every_column() -> None:
    text = coverage_summary(REPO, "default")
    head = text.splitlines()[0]
    full = read_pipe_table((REPO / "data/default/tables/paper2_e2_coverage.md").read_text())
    assert head.count("|") - 1 == 8 < len(full.columns)
    assert len([ln for ln in text.splitlines() if ln.startswith("| nn")]) == len(full)
    assert f"All {len(full.columns)} columns" in text
    assert "[CSV](tables/default/paper2_e2_coverage.csv)" in text
    assert "nan" not in text
    assert "not generated yet" in coverage_summary(REPO, "no-such-tier")


def test_paper2_rows_of_several_arms_name_the_arm(tmp_path: Path) -> None:
    rows = [
        ("P2-C3", "fraction stuck (nn1d, nn_warm: late play < 0.5)", 0.6, "reproduced"),
        ("P2-C3", "fraction stuck (nn1d, nn_greedy: late play < 0.5)", 0.4, "not reproduced"),
        ("P2-C1", "slope (nn1d, rr_ts)", 0.1, "reproduced"),
        ("P2-C1", "slope (gp1d, rr_ts)", 0.2, "reproduced"),
    ]
    frame = pd.DataFrame(rows, columns=["claim_id", "statistic", "value", "verdict"])
    frame[["ci_low", "ci_high"]] = 0.0
    frame.to_csv(tmp_path / "c.csv", index=False)
    table = rt.paper2_table(tmp_path / "c.csv")
    assert (
        "| P2-C3 | fraction stuck (late play < 0.5) | nn1d nn_warm 0.6, nn1d nn_greedy 0.4 |"
        in table
    )
    assert "**reproduced**: nn1d nn_warm; **not reproduced**: nn1d nn_greedy" in table
    assert "| P2-C1 | slope | nn1d 0.1, gp1d 0.2 | **reproduced** on all 2 |" in table  # one arm
