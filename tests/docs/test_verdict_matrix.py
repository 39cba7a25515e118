"""The verdict matrix (claims × tiers) and the captioned figures, from committed-style tables."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from boexplore.reporting import verdict_matrix as vm
from boexplore.reporting.figure_text import figure_block
from boexplore.reporting.results_text import render

REPO = Path(__file__).resolve().parents[2]
TIERS = (vm.MatrixTier("b", "bee", "b.md"), vm.MatrixTier("a", "ay", "a.md"))


def _table(repo: Path, tier: str, rows: list[tuple[str, str, str]], name: str = "c.csv") -> None:
    path = repo / "data" / tier / "tables" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(rows, columns=["claim_id", "variant", "verdict"])
    frame.assign(claim=frame["claim_id"] + " says so.").to_csv(path, index=False)


def test_cells_rows_and_columns(tmp_path: Path) -> None:
    _table(tmp_path, "a", [("P9-C1", "", "reproduced"), ("P9-C2", "", "undecidable at this scale: needs 8 seeds")])  # fmt: skip
    _table(tmp_path, "b", [("P9-C10", "", "not reproduced"), ("P9-C2", "", "missing data: no runs"),
                           ("P9-U1", "x", "reproduced")])  # fmt: skip
    rows = vm.MatrixRows("Paper 9", "c.csv", TIERS)
    html = vm.verdict_matrix(tmp_path, papers=[rows])
    claims = re.findall(r"<strong>(P9-\w+)</strong>", html)
    assert claims == ["P9-C1", "P9-C2", "P9-C10", "P9-U1"]  # C by number, then U
    heads = re.findall(r'<th><a href="([^"]+)">([^<]+)</a></th>', html)
    assert heads == [("b.md", "bee"), ("a.md", "ay")]  # declared order: most decided first
    c2 = next(line for line in html.splitlines() if "P9-C2" in line)
    assert re.findall(r'data-tier="(\w+)"><span class="verdict verdict-([\w-]+)"', c2) == [
        ("bee", "not-tested"), ("ay", "undecidable")]  # fmt: skip
    assert 'title="undecidable at this scale: needs 8 seeds">undecidable<' in c2
    c1 = next(line for line in html.splitlines() if "P9-C1" in line)
    assert ">not in this tier<" in c1 and "no row in the bee tier" in c1
    assert (
        vm.verdict_matrix(tmp_path, "docs/", [rows]).count('href="docs/') == 4
    )  # 2 heads, 2 links


def test_a_papers_rows_are_one_declaration_and_per_problem_rows_merge(tmp_path: Path) -> None:
    """Paper 2's shape: several rows (problems) per claim: one word when they agree, a count
    per word when they do not, each row's verdict in the title."""
    _table(tmp_path, "a", [("P2-C1", "", "reproduced"), ("P2-C1", "", "reproduced"),
                           ("P2-C3", "", "reproduced"), ("P2-C3", "", "inconclusive")], "p2.csv")  # fmt: skip
    paper2 = vm.MatrixRows("Paper 2", "p2.csv", (vm.MatrixTier("a", "default", "r2.md"),),
                           mark="reconstructed", mark_title="our words")  # fmt: skip
    html = vm.verdict_matrix(tmp_path, papers=[paper2])
    assert 'verdict-reproduced" title="reproduced on all 2">reproduced<' in html
    c3 = next(line for line in html.splitlines() if "P2-C3" in line)
    assert re.findall(r'class="verdict verdict-([\w-]+)" title="[^"]*">([^<]+)<', c3) == [
        ("reproduced", "1 reproduced"), ("undecidable", "1 undecidable")]  # fmt: skip
    assert 'title="row 1: reproduced; row 2: inconclusive">1 reproduced<' in c3
    assert html.count('title="our words">(reconstructed)</em>') == 2  # every statement marked
    assert "Paper 2's statements marked (reconstructed): our words." in html


def test_a_row_label_is_the_statistics_trailing_parentheses() -> None:
    assert vm.row_label("fraction stuck (nn1d, nn_warm; stuck: late play)") == "nn1d, nn_warm"
    assert vm.row_label("R_T(a)/R_T(b) (nn2d)") == "nn2d"
    assert vm.row_label("Spearman(x, y), dynamic runs") == "Spearman(x, y), dynamic runs"


def test_a_tier_of_several_sources_takes_each_claim_from_the_first_that_has_it(
    tmp_path: Path,
) -> None:
    _table(tmp_path, "t", [("P2-C1", "", "not reproduced"), ("P2-C4", "", "reproduced")], "old.csv")
    rerun = tmp_path / "data" / "t" / "checks" / "new.csv"
    rerun.parent.mkdir(parents=True)
    pd.DataFrame({"claim_id": ["P2-C1", "P2-C1"], "claim": "C1.", "verdict": ["reproduced"] * 2,
                  "statistic": ["s (nn1d)", "s (nn2d)"]}).to_csv(rerun, index=False)  # fmt: skip
    tier = vm.MatrixTier("t", "default", "p.md", sources=("checks/new.csv", "tables/old.csv"))
    html = vm.verdict_matrix(tmp_path, papers=[vm.MatrixRows("P", "old.csv", (tier,))])
    c1 = next(line for line in html.splitlines() if "P2-C1" in line)
    assert 'title="reproduced on all 2 (from data/t/checks/new.csv)">reproduced<' in c1
    c4 = next(line for line in html.splitlines() if "P2-C4" in line)
    assert 'title="reproduced (from data/t/tables/old.csv)">reproduced<' in c4
    missing = vm.MatrixTier("t", "x", "p.md", sources=("checks/none.csv",))
    assert "no claims table" in vm.verdict_matrix(tmp_path, papers=[vm.MatrixRows("P", "old.csv", (missing,))])  # fmt: skip


def test_a_table_with_bands_becomes_a_column_group(tmp_path: Path) -> None:
    """The d-band hook: a ``band`` column splits a tier into one sub-column per band."""
    _table(tmp_path, "a", [("P1-C4", "", "reproduced"), ("P1-C5", "", "not reproduced")])
    path = tmp_path / "data" / "b" / "tables" / "band.csv"
    path.parent.mkdir(parents=True)
    pd.DataFrame({"claim_id": ["P1-C4", "P1-C4", "P1-C5"], "claim": "says so.",
                  "band": ["180", "2-6", "180"],
                  "verdict": ["reproduced", "not reproduced", "undecidable at this scale: needs 9 seeds"]}
                 ).to_csv(path, index=False)  # fmt: skip
    tiers = (vm.MatrixTier("a", "ay", "a.md"),
             vm.MatrixTier("b", "d band", "b.md", sources=("tables/band.csv",)))  # fmt: skip
    html = vm.verdict_matrix(tmp_path, papers=[vm.MatrixRows("Paper 1", "c.csv", tiers)])
    head = next(line for line in html.splitlines() if "<thead>" in line)
    assert '<th rowspan="2">Paper 1 claim</th><th rowspan="2"><a href="a.md">ay</a></th>' in head
    assert '<th colspan="2"><a href="b.md">d band</a></th></tr><tr><th>2-6</th><th>180</th>' in head
    c5 = next(line for line in html.splitlines() if "<strong>P1-C5" in line)
    assert re.findall(r'data-tier="([^"]+)"><span class="verdict verdict-([\w-]+)"', c5) == [
        ("ay", "not-reproduced"), ("d band 2-6", "absent"), ("d band 180", "undecidable")]  # fmt: skip
    assert "no row in the d band 2-6 column" in c5 and ">not in this band<" in c5
    assert [vm.band_order(b)[0] for b in ("2-6", "50-60", "100", "x")] == [2, 50, 100, float("inf")]


def test_no_tables_and_unknown_verdicts_are_named(tmp_path: Path) -> None:
    assert "no claims table" in vm.verdict_matrix(
        tmp_path, papers=[vm.MatrixRows("P", "c.csv", TIERS)]
    )
    with pytest.raises(ValueError, match="unknown verdict 'maybe'"):
        vm.verdict_word("maybe")


@given(st.sampled_from(["reproduced", "not reproduced", "missing data", "undecidable at this scale"]),
       st.text(alphabet="abc 0123456789×", max_size=30))  # fmt: skip
def test_a_verdict_word_ignores_its_scale(start: str, rest: str) -> None:
    word, css = vm.verdict_word(f"{start}: {rest}" if rest else start)
    assert word in {"reproduced", "not reproduced", "not tested", "undecidable"}
    assert css == word.replace(" ", "-").replace("not-tested", "not-tested")


def test_the_committed_matrix_covers_every_paper1_tier() -> None:
    html = render("verdict-matrix-paper1", REPO)
    assert [t.label for t in vm.PAPER1_TIERS] == re.findall(
        r'<th[^>]*><a href="[^"]+">([^<]+)</a>', html
    )
    assert "nan" not in re.sub(r"<[^>]+>", "", html)
    assert "tie-aware" not in html  # a band table adds cells to the claims rows, not rows
    decide = pd.read_csv(REPO / "data/replicate-decide/tables/claims_paper1.csv")
    c5 = decide.loc[decide.claim_id == "P1-C5", "verdict"].iloc[0]
    row = next(line for line in html.splitlines() if "<strong>P1-C5</strong>" in line)
    assert f'data-tier="decide"><span class="verdict verdict-{vm.verdict_word(c5)[1]}"' in row


def test_the_committed_matrix_holds_paper2_with_its_statements_marked() -> None:
    html = render("verdict-matrix", REPO)
    assert html.count('<table class="verdict-matrix__table">') == 2  # one table per paper
    claims = re.findall(r"<strong>(P2-C\d)</strong>", html)
    assert claims == ["P2-C1", "P2-C2", "P2-C3", "P2-C4", "P2-C5"]
    rows = [line for line in html.splitlines() if "<strong>P2-" in line]
    assert all("(reconstructed)</em>" in row for row in rows)
    c3 = next(row for row in rows if "P2-C3" in row)  # the paired rule, not the earlier one
    assert "paper2-paired" in c3 and "verdict-undecidable" in c3
    assert "paper2-paired" not in next(row for row in rows if "P2-C4" in row)
    assert "nan" not in re.sub(r"<[^>]+>", "", html)


def test_a_figure_names_its_tier_and_says_what_it_shows() -> None:
    block = figure_block(REPO, "replicate", "otsd_vs_oe")
    assert block.startswith('<figure class="boexplore-figure" markdown="span">')
    assert "![Replicate tier: otsd vs oe](figures/replicate/otsd_vs_oe.png)" in block
    assert "<figcaption><strong>Replicate tier.</strong> OTSD–OE agreement" in block
    with pytest.raises(FileNotFoundError, match="not committed"):
        figure_block(REPO, "replicate", "no_such_figure")
    with pytest.raises(KeyError, match="unknown figure folder"):
        figure_block(REPO, "nowhere", "otsd_vs_oe")


def test_raw_html_links_to_pages_are_rewritten_and_a_dead_one_warns(caplog) -> None:
    """The matrix's ``<a href="page.md">`` (raw HTML, which MkDocs leaves alone) becomes the
    page's URL; a link to no page warns, which fails ``mkdocs build --strict``."""
    from types import SimpleNamespace

    from boexplore.reporting import mkdocs_hooks as hooks

    here = SimpleNamespace(src_uri="results-paper1.md")
    decide = SimpleNamespace(url_relative_to=lambda f: "../results-paper1-decide/")
    files = SimpleNamespace(get_file_from_path=lambda p: decide if p == "results-paper1-decide.md" else None)  # fmt: skip
    page = SimpleNamespace(file=here)
    html = '<a href="results-paper1-decide.md#x">d</a> <a href="gone.md">g</a> <a href="y/">y</a>'
    with caplog.at_level("WARNING", logger="mkdocs.plugins.boexplore"):
        out = hooks.on_page_content(html, page, {}, files)
    assert (
        out
        == '<a href="../results-paper1-decide/#x">d</a> <a href="gone.md">g</a> <a href="y/">y</a>'
    )
    assert "gone.md, which is not a page of the site" in caplog.text


def test_every_cell_of_a_markdown_table_gets_its_heading() -> None:
    from boexplore.reporting.mkdocs_hooks import label_table_cells

    html = (
        "<table>\n<thead>\n<tr>\n<th>claim</th>\n<th>a &amp; <code>b</code></th>\n</tr>\n</thead>\n"
        '<tbody>\n<tr>\n<td>P1-C1</td>\n<td style="x">1</td>\n</tr>\n</tbody>\n</table>'
        '<table class="verdict-matrix__table"><tr><td>kept</td></tr></table>'
    )
    out = label_table_cells(html)
    assert '<td data-label="claim">P1-C1</td>' in out
    assert '<td data-label="a &amp; b" style="x">1</td>' in out
    assert '<table class="verdict-matrix__table"><tr><td>kept</td></tr></table>' in out


def test_paper2s_page_table_shows_the_view_columns_when_a_table_has_them(tmp_path: Path) -> None:
    from boexplore.reporting.results_text import paper2_table

    rows = pd.DataFrame({"claim_id": ["P2-C2"] * 2, "statistic": ["d (a)", "d (b)"],
                         "value": [1.0, 2.0], "ci_low": [0, 0], "ci_high": [2, 3],
                         "verdict": ["reproduced"] * 2})  # fmt: skip
    rows.to_csv(tmp_path / "plain.csv", index=False)
    assert "left out" not in paper2_table(tmp_path / "plain.csv")  # the committed default table
    rows.assign(lopo=["same without the other problem", "changes without a → undecidable"]).to_csv(
        tmp_path / "views.csv", index=False
    )
    table = paper2_table(tmp_path / "views.csv").splitlines()
    assert table[0].endswith("| verdict | one problem left out |")
    assert table[2].endswith(
        "| a: same without the other problem; b: changes without a → undecidable |"
    )


def test_a_table_of_parts_by_band_reads_its_decision_column(tmp_path: Path) -> None:
    """``claims_paper1_bands.csv``'s shape: one row per claim part and band, ``decision``
    instead of ``verdict``, no statement (it comes from the tier that has one)."""
    path = tmp_path / "data" / "b" / "tables" / "bands.csv"
    path.parent.mkdir(parents=True)
    pd.DataFrame({"claim_id": ["P1-C3"] * 3, "variant": "", "part": ["a ⪰ b", "b ⪰ c", "a ⪰ b"],
                  "band": ["50-60", "50-60", "100"],
                  "decision": ["reproduced", "not reproduced", "undecided"]}).to_csv(path, index=False)  # fmt: skip
    _table(tmp_path, "a", [("P1-C3", "", "not reproduced")])
    tiers = (vm.MatrixTier("b", "d band", "b.md", sources=("tables/bands.csv",)),
             vm.MatrixTier("a", "ay", "a.md"))  # fmt: skip
    html = vm.verdict_matrix(tmp_path, papers=[vm.MatrixRows("Paper 1", "c.csv", tiers)])
    row = next(line for line in html.splitlines() if "<strong>P1-C3" in line)
    assert "P1-C3</strong> P1-C3 says so." in row  # the statement of the tier that has one
    assert 'title="a ⪰ b: reproduced; b ⪰ c: not reproduced">1 reproduced<' in row
    assert re.findall(r'data-tier="([^"]+)"><span class="verdict verdict-([\w-]+)"', row) == [
        ("d band 50-60", "reproduced"), ("d band 100", "undecidable"), ("ay", "not-reproduced")]  # fmt: skip
