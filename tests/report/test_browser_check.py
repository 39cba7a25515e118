"""The headless-Chromium report check passes a sound page and fails a broken one.

A minimal page with the report's data layout (``workflow_desc``, ``results``) stands
in for a Snakemake report; the real report is checked by the smoke test.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from browser_check import find_chromium, probe_report, problems

from boexplore.reporting.claims_html import claims_html

pytestmark = [
    pytest.mark.slow,  # two Chromium launches, ~8 s each
    pytest.mark.skipif(find_chromium() is None, reason="chromium not installed"),
]


def _png() -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=50)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _page(tmp_path: Path, *, broken_png: bool, empty_claims: bool, desc: str) -> Path:
    import pandas as pd

    png = _png()
    if broken_png:
        png = png[:60]  # truncated data: the browser cannot decode it
    rows = [] if empty_claims else [{"claim_id": "P1-C1", "claim": "c", "value": 1.0,
                                     "ci_low": 0.5, "ci_high": 1.5, "threshold": 0.0,
                                     "verdict": "reproduced", "n": 3}]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["claim_id", "claim", "value", "ci_low", "ci_high",
                                        "threshold", "verdict", "n"])  # fmt: skip
    page = claims_html(frame, "claims")
    results = {
        "figures/fig.png": {"mime_type": "image/png", "caption": "<p>ok</p>", "data_uri": png},
        "results/r/report/claims_paper1.html": {
            "mime_type": "text/html",
            "caption": "",
            "data_uri": "data:text/html;base64," + base64.b64encode(page.encode()).decode(),
        },
    }
    html = (
        "<!DOCTYPE html><html><head><script>"
        f"var workflow_desc = {json.dumps(desc)}; var results = {json.dumps(results)};"
        "</script></head><body><div>report</div></body></html>"
    )
    path = tmp_path / "report.html"
    path.write_text(html)
    return path


def test_sound_page_passes(tmp_path: Path) -> None:
    found = probe_report(_page(tmp_path, broken_png=False, empty_claims=False, desc="<p>hi</p>"))
    assert found["images"]["figures/fig.png"]["w"] > 0
    assert found["tables"]["results/r/report/claims_paper1.html"]["rows"] == 1
    assert problems(found, ["paper1"]) == []


def test_broken_page_fails(tmp_path: Path) -> None:
    desc = '<div class="system-message"><p>System Message: WARNING/2</p></div>'
    found = probe_report(_page(tmp_path, broken_png=True, empty_claims=True, desc=desc))
    fails = problems(found, ["paper1", "paper2"])
    assert "figure does not load: figures/fig.png" in fails
    assert "claims table without rows: results/r/report/claims_paper1.html" in fails
    assert "claims table of paper2 missing from the report" in fails
    assert "docutils System Message in landing text" in fails
