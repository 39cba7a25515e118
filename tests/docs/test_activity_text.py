"""P1-C7's mechanism activity in the results text (issue 58), from the committed tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from boexplore.reporting.activity_text import activity_markdown, activity_summary


def _repo(tmp_path: Path, rows: list[tuple], high_d_min: int = 50) -> Path:
    tables = tmp_path / "data" / "t" / "tables"
    tables.mkdir(parents=True)
    cols = ["mechanism", "problem", "dim", "method", "n_seeds", "n_acted"]
    act = pd.DataFrame(rows, columns=cols)
    act["frac_acted"] = act["n_acted"] / act["n_seeds"]
    act["kept_by_filter"] = act["frac_acted"] >= 0.5
    act.to_csv(tables / "claims_paper1_activity.csv", index=False)
    evals = {"lo": 40, "hi": 30, "hj": 30, "hk": 30}
    pd.DataFrame([{"problem": p, "n_evals": n} for p, n in evals.items()]).to_csv(
        tables / "runs_summary.csv", index=False
    )
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "t.yaml").write_text(f"analysis: {{high_d_min: {high_d_min}}}\n")
    return tmp_path


ROWS = [
    ("trust_region", "lo", 2, "logei_tr", 30, 30),
    ("trust_region", "hi", 60, "logei_tr", 30, 1),
    ("trust_region", "hj", 60, "logei_tr", 30, 9),
    ("trust_region", "hk", 100, "logei_tr", 30, 17),
    ("raasp", "lo", 2, "logei_raasp", 30, 30),
    ("raasp", "hi", 60, "logei_raasp", 30, 30),
]


def test_summary_names_where_the_trust_region_acted_and_the_share_elsewhere(tmp_path):
    text = activity_summary(_repo(tmp_path, ROWS), "t")
    assert "on 1 of 1 problems with d < 50 at 40 evaluations" in text
    assert "on 1 of 3 problems with d ≥ 50 at 30 evaluations (`hk`, 17/30 seeds)" in text
    assert "on the other 2 it did in 3–30 % of the seeds" in text
    assert text.endswith("RAASP acted in every seed of its 2 units")


def test_control_a_lower_high_d_threshold_moves_problems_across(tmp_path):
    text = activity_summary(_repo(tmp_path, ROWS, high_d_min=2), "t")
    assert "d < 2" not in text and "on 2 of 4 problems with d ≥ 2" in text


def test_table_marks_the_units_the_filter_leaves_out(tmp_path):
    table = activity_markdown(_repo(tmp_path, ROWS), "t").splitlines()
    assert table[0].startswith("| problem | d | evaluations | `logei_tr`: trust region changed")
    assert "| `hi` | 60 | 30 | 1/30 (left out) | 30/30 |" in table
    assert "| `hk` | 100 | 30 | 17/30 | – |" in table
    assert "claims_paper1_activity.csv` is missing" in activity_summary(tmp_path / "nowhere", "t")
