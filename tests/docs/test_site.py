"""The documentation site: `mkdocs build --strict`, then every page in headless Chromium.

Marked ``docs`` (CI: ``pytest -m docs`` after installing Chromium). The controls break a
copy of the built site three ways — a missing image, a dead link, a console error — and the
same check must fail on each.
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
