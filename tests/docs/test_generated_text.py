"""README and docs: generated regions equal what the committed tables give; generated pages current."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from boexplore.reporting import results_text as rt

REPO = Path(__file__).resolve().parents[2]


def test_readme_and_docs_match_the_committed_tables() -> None:
    assert rt.check(REPO) == [], "regenerate: python -m boexplore.reporting.results_text"


def test_readme_has_the_generated_results_and_times() -> None:
    names = {m["name"] for m in rt.REGION.finditer((REPO / "README.md").read_text())}
    assert {"verdict-matrix-readme", "paper2-default", "time-default", "time-smoke"} <= names
    assert len((REPO / "README.md").read_text().splitlines()) <= 200


@pytest.fixture
def mini_repo(tmp_path: Path) -> Path:
    """README + the replicate claims table in a scratch repository."""
    (tmp_path / "data" / "replicate" / "tables").mkdir(parents=True)
    shutil.copy(
        REPO / "data/replicate/tables/claims_paper1.csv", tmp_path / "data/replicate/tables"
    )
    (tmp_path / "README.md").write_text(
        "x\n<!-- BEGIN generated:paper1-replicate -->\n<!-- END generated:paper1-replicate -->\n"
    )
    rt.write(tmp_path, ["README.md"])
    assert rt.check(tmp_path, ["README.md"]) == []
    return tmp_path


def test_a_number_edited_in_the_text_fails_the_check(mini_repo: Path) -> None:
    readme = mini_repo / "README.md"
    text = readme.read_text()
    rho = re.search(r"ρ\(OTSD, OE\) = ([0-9.]+) \[", text)  # P1-C1's rho, replicate tier
    assert rho is not None
    readme.write_text(text.replace(rho.group(0), rho.group(0).replace(rho.group(1), "0.999")))
    assert rt.check(mini_repo, ["README.md"]) == [
        "README.md: region 'paper1-replicate' differs from its tables"
    ]


def test_a_table_updated_without_regenerating_fails_the_check(mini_repo: Path) -> None:
    csv = mini_repo / "data/replicate/tables/claims_paper1.csv"
    csv.write_text(csv.read_text().replace("not reproduced", "reproduced", 1))
    assert len(rt.check(mini_repo, ["README.md"])) == 1


def test_paper2_rows_group_problems_and_verdicts(tmp_path: Path) -> None:
    import pandas as pd

    rows = [
        ("P2-C2", f"R_T(RR-TS)/R_T(GP-TS) ({p})", v, "reproduced" if v < 1.5 else "inconclusive")
        for p, v in (("nn1d", 0.907), ("nn2d", 0.798), ("gp1d", 1.7))
    ]
    frame = pd.DataFrame(rows, columns=["claim_id", "statistic", "value", "verdict"])
    frame[["ci_low", "ci_high"]] = 0.0
    frame.to_csv(tmp_path / "c.csv", index=False)
    table = rt.paper2_table(tmp_path / "c.csv")
    assert "nn1d 0.907, nn2d 0.798, gp1d 1.7" in table
    assert "**reproduced**: nn1d, nn2d; inconclusive: gp1d" in table


def test_sync_copies_the_small_tables_only(tmp_path: Path) -> None:
    src = tmp_path / "results" / "default" / "tables"
    src.mkdir(parents=True)
    for name in ("claims_paper1.csv", "claims_paper2.csv", "metrics.parquet"):
        (src / name).write_text("x")
    copied = rt.sync(src.parent, tmp_path / "data" / "default" / "tables")
    assert sorted(p.name for p in copied) == ["claims_paper1.csv", "claims_paper2.csv"]
    with pytest.raises(FileNotFoundError):
        rt.sync(tmp_path / "nothing", tmp_path / "out")


def test_configuration_reference_is_generated_from_the_schemas() -> None:
    from boexplore.reporting.config_docs import page_markdown

    page = (REPO / "docs" / "configuration.md").read_text()
    assert page == page_markdown(), "regenerate: python -m boexplore.reporting.config_docs"
    for key in ("`run_name`", "`bo.by_method`", "`thresholds", "`e1.policy_overrides`"):
        assert key in page, key


def test_tutorial_page_shows_the_current_script() -> None:
    from boexplore.reporting.tutorial_page import recorded_sha, script_sha, split_docstring

    page = REPO / "docs" / "tutorial.md"
    assert recorded_sha(page) == script_sha(REPO / "docs" / "tutorial.py"), (
        "regenerate: python -m boexplore.reporting.tutorial_page"
    )
    _, code = split_docstring((REPO / "docs" / "tutorial.py").read_text())
    assert code in page.read_text()


def test_contrasts_table_shows_every_count_and_leaves_gaps(tmp_path: Path) -> None:
    from boexplore.reporting.results_text import contrasts_table

    tables = tmp_path / "data" / "t" / "tables"
    tables.mkdir(parents=True)
    row = dict(problem="p", dim=50, contrast="a - b", metric="otsd_norm", budget=100, seeds=8)
    pd.DataFrame(
        [
            {
                **row,
                "evaluations": 30,
                "mean_diff": 0.01,
                "ci_low": 0.005,
                "ci_high": 0.015,
                "n_positive": 8,
            },
            {
                **row,
                "evaluations": 100,
                "mean_diff": -0.02,
                "ci_low": -0.03,
                "ci_high": -0.01,
                "n_positive": 0,
            },
            {
                **row,
                "problem": "q",
                "evaluations": 30,
                "mean_diff": 0.0,
                "ci_low": -0.01,
                "ci_high": 0.01,
                "n_positive": 4,
            },
        ]
    ).to_csv(tables / "contrasts.csv", index=False)
    text = contrasts_table(tmp_path, "t")
    assert (
        "| a - b | p (50) | +0.0100 [+0.0050, +0.0150] (8/8) | -0.0200 [-0.0300, -0.0100] (0/8) |"
        in text
    )
    assert "| a - b | q (50) | +0.0000 [-0.0100, +0.0100] (4/8) |  |" in text
    assert "not" in contrasts_table(tmp_path, "absent").lower()


def test_tier_comparison_pairs_claims_and_variants(tmp_path: Path) -> None:
    cols = ["claim_id", "variant", "value", "verdict", "holds_from", "budget_trend"]
    rows = {
        "short": [
            ("P1-C4", "ts", 0.0, "not reproduced", None, "reproduced at no prefix"),
            ("P1-C4", "ts_polish", 0.5, "undecidable", None, ""),
            ("P1-C1", "", 0.8, "reproduced", 0.5, ""),
        ],
        "long": [
            ("P1-C4", "ts_polish", 1.0, "reproduced", 0.75, ""),
            ("P1-C4", "ts", 0.0, "not reproduced", None, "reproduced at no prefix"),
            ("P1-X1", "", 1.0, "reproduced", None, ""),
            ("P1-C6", "", None, "missing data: no matched variant pairs", None, ""),
        ],
    }
    for tier, data in rows.items():
        d = tmp_path / "data" / tier / "tables"
        d.mkdir(parents=True)
        pd.DataFrame(data, columns=cols).to_csv(d / "claims_paper1.csv", index=False)
    text = rt.tier_comparison(tmp_path, "short", "long")
    assert (
        "| P1-C4 (`ts_polish`) | undecidable (0.5) | **reproduced** (1) "
        "| holds from 75 % of the budget |" in text
    )
    assert "| P1-C4 (`ts`) | **not reproduced** (0) | **not reproduced** (0) |" in text
    assert "| P1-X1 | not decided | **reproduced** (1) |" in text
    assert "P1-C1" not in text  # decided only in the shorter tier
    assert "P1-C6" not in text  # no data in the longer tier
    assert "missing" in rt.tier_comparison(tmp_path, "short", "absent")
    three = rt.tier_comparison(tmp_path, ["short", "short"], "long")  # several earlier tiers
    assert three.splitlines()[1] == "|---|---|---|---|---|"
    assert "| P1-X1 | not decided | not decided | **reproduced** (1) |" in three


def test_tier_moves_short_names_moves_and_open_rows(tmp_path: Path) -> None:
    cols = ["claim_id", "variant", "value", "verdict"]
    rows = {
        "few": [
            ("P1-C4", "ts_polish", 0.5, "undecidable at this scale: needs 10 seeds × 6 problems"),
            ("P1-C3", "", 0.8, "not reproduced"),
            ("P1-U3", "", 0.1, "undecidable at this scale: needs 50 seeds × 6 problems"),
        ],
        "more": [
            ("P1-C4", "ts_polish", 1.0, "reproduced"),
            ("P1-C3", "", 0.8, "not reproduced"),
            ("P1-U3", "", 0.1, "undecidable at this scale: needs 50 seeds × 6 problems; "
             "not run: 9 more BO seed runs, 1.5 CPU-h by the cost model"),
        ],
    }  # fmt: skip
    for tier, data in rows.items():
        d = tmp_path / "data" / tier / "tables"
        d.mkdir(parents=True)
        pd.DataFrame(data, columns=cols).to_csv(d / "claims_paper1.csv", index=False)
    text = rt.tier_moves_short(tmp_path, "few", "more")
    assert text.startswith("P1-C4 (`ts_polish`) undecidable → **reproduced**; still undecidable: ")
    assert "P1-U3 (needs 50 seeds × 6 problems; not run: 9 more BO seed runs" in text
    assert "P1-C3" not in text  # the same verdict in both tiers
    assert rt.tier_moves_short(tmp_path, "few", "few").startswith("no verdict moves")


def test_contrasts_table_by_share_of_budget_when_budgets_differ(tmp_path: Path) -> None:
    tables = tmp_path / "data" / "t" / "tables"
    tables.mkdir(parents=True)
    base = dict(contrast="a - b", metric="otsd_norm", seeds=8, ci_low=0.0, ci_high=0.02)
    pd.DataFrame(
        [
            {**base, "problem": "p", "dim": 2, "budget": 80, "evaluations": 40, "mean_diff": 0.01,
             "n_positive": 6},
            {**base, "problem": "q", "dim": 5, "budget": 100, "evaluations": 50, "mean_diff": 0.0,
             "n_positive": 4},
            {**base, "problem": "q", "dim": 5, "budget": 100, "evaluations": 100,
             "mean_diff": 0.01, "n_positive": 7},
        ]
    ).to_csv(tables / "x.csv", index=False)  # fmt: skip
    text = rt.contrasts_table(tmp_path, "t", "x.csv")
    assert text.splitlines()[0] == "| contrast | problem (d) | 50 % of budget | 100 % of budget |"
    assert "| a - b | p (2) | n = 40: +0.0100 [+0.0000, +0.0200] (6/8) |  |" in text
    assert "n = 100: +0.0100" in text


def test_contrasts_summary_counts_sides_and_growth(tmp_path: Path) -> None:
    tables = tmp_path / "data" / "t" / "tables"
    tables.mkdir(parents=True)
    rows = []
    for problem, (d30, d100, lo, hi) in {
        "p": (0.01, 0.02, 0.015, 0.025),  # above zero, grew
        "q": (-0.01, -0.005, -0.008, -0.002),  # below zero, shrank
        "r": (0.01, -0.02, -0.03, 0.01),  # interval spans zero, sign flipped
    }.items():
        for n, d, a, b in ((30, d30, d30 - 1, d30 + 1), (100, d100, lo, hi)):
            rows.append(dict(problem=problem, dim=50, contrast="a - b", evaluations=n,
                             budget=100, seeds=8, mean_diff=d, ci_low=a, ci_high=b, n_positive=4))  # fmt: skip
    pd.DataFrame(rows).to_csv(tables / "contrasts.csv", index=False)
    assert rt.contrasts_summary(tmp_path, "t") == (
        "- a - b: at the largest budget above zero on 1 of 3 problems, below zero on 1; "
        "further from zero than at the smallest budget on 1."
    )

    half = rt.contrasts_summary(tmp_path, "t", reference_share=1.0, reference="the end")
    assert half.endswith("further from zero than at the end on 0.")  # reference = last: none
    assert rt.render("contrasts-low-d-summary-replicate-long", REPO).startswith("\n- ")


PLACEHOLDERS = ("not measured yet", "not generated yet")


def test_no_generated_region_prints_a_placeholder() -> None:
    """A sentence whose number is missing drops it; no page shows 'not measured yet'."""
    found = [
        f"{path.relative_to(REPO)}: {m['name']}"
        for path in rt.text_files(REPO)
        for m in rt.REGION.finditer(path.read_text())
        if any(p in m["body"] for p in PLACEHOLDERS)
    ]
    assert found == []


def test_an_unmeasured_time_drops_its_clause(tmp_path: Path) -> None:
    render = rt._measured("replicate", "without BO")
    assert render(tmp_path) == "without BO"  # nothing measured: the clause alone, no placeholder
    timings = tmp_path / "data" / "timings"
    timings.mkdir(parents=True)
    (timings / "replicate.json").write_text(
        '{"wall_s": 754, "cores": 2, "load_before": 0.1, "command": "snakemake",'
        ' "cpu": {"vendor": "AMD", "family": 25, "model_number": 1, "model": "AMD EPYC"}}'
    )
    assert render(tmp_path) == (  # control
        "without BO (measured 13 min on 2 idle cores of an AMD EPYC (family 25 model 1))"
    )
