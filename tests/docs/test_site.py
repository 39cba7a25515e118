"""The documentation site: `mkdocs build --strict`, then every page in headless Chromium.

Marked ``docs`` (CI: ``pytest -m docs`` after installing Chromium). The controls break a
copy of the built site three ways — a missing image, a dead link, a console error — and the
same check must fail on each.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

pytestmark = pytest.mark.docs


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _chromium():
    from browser_check import find_chromium

    path = find_chromium()
    if path is None:
        pytest.skip("no chromium: apt-get install chromium (CI installs it)")
    return path


def test_site_builds_with_every_page_and_figure(site: Path) -> None:
    for page in ("index.html", "tutorial/index.html", "configuration/index.html", "api/index.html"):
        assert (site / page).exists(), page
    assert (site / "figures" / "default" / "paper2_regret.png").exists()
    assert "otsd_normalized" in (site / "api" / "index.html").read_text()  # from the docstrings


def test_every_page_opens_without_broken_links_images_or_console_errors(site: Path) -> None:
    import site_check

    report = site_check.check(site, chromium=_chromium())
    assert report["ok"], report["problems"]
    assert report["pages"] >= 15


def test_the_check_fails_on_a_broken_site(site: Path, tmp_path: Path) -> None:
    import site_check

    chromium = _chromium()
    broken = tmp_path / "site"
    shutil.copytree(site, broken)
    (broken / "figures" / "default" / "paper2_regret.png").unlink()  # missing image
    page = broken / "getting-started" / "index.html"
    page.write_text(
        page.read_text().replace(
            "</body>",
            '<a href="../no-such-page/">x</a><script>console.error("boom")</script></body>',
        )
    )
    report = site_check.check(broken, ["/", "/getting-started/"], chromium=chromium)
    text = "\n".join(report["problems"])
    assert not report["ok"]
    assert "paper2_regret.png" in text  # the image (index page)
    assert "no-such-page" in text  # the dead link
    assert "boom" in text  # the console error


WIDE_PAGES = (
    "index",
    "results-paper1",
    "results-paper1-replicate",
    "results-paper2",
    "diagnostics",
)
TABLE_PROBE = """<script>
window.addEventListener("load", () => {
  const h = document.getElementById("HEADING");
  let el = h.nextElementSibling;
  while (el && !el.querySelector("table")) el = el.nextElementSibling;
  const pre = document.createElement("pre");
  pre.id = "table-width";
  pre.textContent = String(Math.round(el.querySelector("table").getBoundingClientRect().width));
  document.body.appendChild(pre);
});
</script>"""


def _table_width(page: Path, heading: str, chromium: str, wide: bool = True) -> int:
    """Rendered width (px) of the first table after ``heading`` in a 1400 px wide window."""
    html = page.read_text()
    if not wide:  # control: the same page without the hook's class
        html = html.replace('<body class="boexplore-wide"', "<body", 1)
    probe = page.with_name("probe.html")
    probe.write_text(html.replace("</body>", TABLE_PROBE.replace("HEADING", heading) + "</body>"))
    proc = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--window-size=1400,1000", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    probe.unlink()
    m = re.search(r'<pre id="table-width">(\d+)</pre>', proc.stdout)
    assert m, proc.stderr[-2000:]
    return int(m.group(1))


def test_results_pages_are_wide_and_generated_markers_are_not_in_the_html(site: Path) -> None:
    for name in WIDE_PAGES:
        page = site / "index.html" if name == "index" else site / name / "index.html"
        assert '<body class="boexplore-wide"' in page.read_text(), name
    plain = site / "getting-started" / "index.html"
    assert "boexplore-wide" not in plain.read_text()  # control: a plain page
    assert (site / "assets" / "boexplore.css").exists()
    for page in site.rglob("*.html"):  # markers dropped before Markdown (no split paragraphs)
        assert "generated:" not in page.read_text(), page
    text = (site / "results-paper1" / "index.html").read_text()
    assert "not measured yet" not in text
    assert re.search(r"re-derives the tables and\s+figures without BO\.</li>", text)


def test_claims_table_gets_the_width_on_a_wide_page(site: Path, tmp_path: Path) -> None:
    """Headless Chromium at 1400 px: the replicate claims table is wider than Material's content
    column allows (the squeeze the wide layout removes); control: without the class it is not."""
    chromium = _chromium()
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    page = copy / "results-paper1-replicate" / "index.html"
    wide = _table_width(page, "paper-1-replicate-tier", chromium)
    narrow = _table_width(page, "paper-1-replicate-tier", chromium, wide=False)
    assert narrow < 700 < 800 < wide, (narrow, wide)
