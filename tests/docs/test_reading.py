"""What a reader takes in, measured in headless Chromium (issue: results a reader can take in).

Marked ``docs`` (CI: ``pytest -m docs`` after installing Chromium). On the built site:

* at 1440 × 900 no figure renders narrower than 700 px, and every results figure has a caption;
* no page shows "nan", "not stated" or a lone "?", and no user page an issue number;
* the home page's verdict matrix, and no table of a results page, scrolls sideways in a
  390 × 844 window;
* no results page is taller than 10,000 px.

The controls break a copy of the site once per check (a narrowed figure, a "nan" cell, a
matrix forced wider than the phone, a page padded past the height limit) and each check must
fail on it. The pure helpers (the word pattern, the failure rules) are tested without a browser.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

import reading_check as rc  # noqa: E402


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=REPO, capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _chromium() -> str:
    from browser_check import find_chromium

    path = find_chromium()
    if path is None:
        pytest.skip("no chromium: apt-get install chromium (CI installs it)")
    return path


@pytest.fixture(scope="module")
def report(site: Path) -> dict:
    """The four checks on every page of the built site (one Chromium run per page)."""
    return rc.check(site, chromium=_chromium())


def _of(report: dict, needle: str) -> list[str]:
    return [f for f in report["failures"] if needle in f]


@pytest.mark.docs
def test_every_figure_renders_at_reading_size_with_a_caption(report: dict) -> None:
    assert report["pages"] >= 20
    assert _of(report, " px wide (< ") == []
    assert _of(report, "has no caption") == []


@pytest.mark.docs
def test_no_results_page_is_taller_than_the_limit(report: dict) -> None:
    results = [p for p in report["heights"] if rc.is_results_page(p)]
    assert len(results) >= 7, results  # the paper-1 overview, five tier pages, paper 2
    assert _of(report, "px tall") == []


@pytest.mark.docs
def test_the_verdict_matrix_and_the_results_tables_fit_a_phone(report: dict) -> None:
    assert _of(report, "verdict matrix") == []
    assert _of(report, "px wide at 390") == []
    assert _of(report, "scroll sideways at 390") == []


@pytest.mark.docs
def test_no_page_shows_unusable_words_or_issue_numbers(report: dict) -> None:
    assert _of(report, "visible text holds") == []
    assert _of(report, "which a reader cannot open") == []


@pytest.mark.docs
def test_each_check_fails_on_a_broken_copy(site: Path, tmp_path: Path) -> None:
    broken = tmp_path / "site"
    shutil.copytree(site, broken)
    home = broken / "index.html"
    text = home.read_text()
    text = text.replace('<table class="verdict-matrix__table"',
                        '<table class="verdict-matrix__table" style="min-width: 900px"', 1)  # fmt: skip
    text = text.replace("</article>", "<table><tr><td>nan</td><td>yes / ?</td><td>see issue 42</td></tr></table>"
                        '<img src="figures/default/paper2_regret.png" style="width: 300px">'
                        "</article>", 1)  # fmt: skip
    home.write_text(text)
    page = broken / "results-paper2" / "index.html"
    page.write_text(
        page.read_text().replace("</article>", '<div style="height: 12000px"></div></article>', 1)
    )
    found = rc.check(broken, ["/", "/results-paper2/"], chromium=_chromium())
    text = "\n".join(found["failures"])
    assert not found["ok"]
    assert "/: figure figures/default/paper2_regret.png renders 300 px wide" in text
    assert "/: figure figures/default/paper2_regret.png has no caption" in text
    assert "/: visible text holds a table cell 'nan'" in text
    assert "yes / ?" in text
    assert "/: names 'issue 42', which a reader cannot open" in text
    assert "/: the verdict matrix scrolls sideways at 390 px" in text
    # the matrix forced wide: its first table, and the frame it widens carries the second
    # (one table per paper) past the window too
    assert "/: 2 table(s) scroll sideways at 390 px" in text
    assert "/results-paper2/:" in text and "px tall (> 10000)" in text


# --- without a browser ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, bad",
    [
        ("value nan → nan at 25 %", True),
        ("yes / ?", True),
        ("date not stated", True),
        ("(?)", True),
        ("Why does it stop? Because", False),
        ("NaN while undefined", False),
        ("a nanosecond, finance", False),
        ("value 0.5 → 0.7", False),
    ],
)
def test_unusable_words(text: str, bad: bool) -> None:
    assert bool(rc.unusable_words(text)) is bad


def test_failure_rules() -> None:
    desktop = {"figures": [{"src": "a.png", "width": 699, "captioned": False}, {"src": "b.png", "width": 700}],
               "text": "fine", "cells": ["NaN", "0.5"], "height": 10_001}  # fmt: skip
    out = rc.page_failures("/results-paper1-long/", desktop)
    assert out == [
        "/results-paper1-long/: figure a.png renders 699 px wide (< 700)",
        "/results-paper1-long/: visible text holds a table cell 'NaN'",
        "/results-paper1-long/: figure a.png has no caption",
        "/results-paper1-long/: 10001 px tall (> 10000)",
    ]
    assert rc.page_failures("/api/", {**desktop, "figures": [], "cells": []}) == []  # not results
    phone = {"matrix": {"table": 380, "frame": 380, "scroll": 380, "client": 380},
             "page_width": 390, "window": 390}  # fmt: skip
    assert rc.matrix_failures("/", phone) == []
    wide = {**phone, "matrix": {"table": 600, "frame": 380, "scroll": 600, "client": 380}}
    assert "scrolls sideways" in rc.matrix_failures("/", wide)[0]
    assert rc.phone_failures("/", {"scrolling": 2}) == ["/: 2 table(s) scroll sideways at 390 px"]
    assert rc.phone_failures("/", {"scrolling": 0}) == []
    assert rc.matrix_failures("/", {**phone, "matrix": None}) == [
        "/: no verdict matrix (.verdict-matrix table)"
    ]
