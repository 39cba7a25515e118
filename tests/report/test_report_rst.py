"""Report text renders without docutils warnings; claims HTML and tidy params (fast, no workflow run).

The captions are rendered the way ``snakemake --report`` does: Jinja first (with the
run's config), then docutils with Snakemake's link targets appended (``Workflow``,
``Statistics``, one per category and one per result file). Docutils target names are
case-insensitive, so a category called "Workflow" duplicates Snakemake's own target.
"""

from __future__ import annotations

import io
import pickle
import re
from pathlib import Path

import jinja2
import pandas as pd
import pytest
import yaml
from docutils.core import publish_parts

from boexplore.reporting.claims_html import claims_html
from boexplore.reporting.params import ReportParam, report_param

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # docutils 2.0 API

REPO = Path(__file__).resolve().parents[2]
REPORT = REPO / "workflow" / "report"
RULES = sorted((REPO / "workflow" / "rules").glob("*.smk"))


def categories() -> set[str]:
    """Every ``category=`` given to ``report(...)`` in the rules."""
    found: set[str] = set()
    for smk in RULES:
        found |= set(re.findall(r'category="([^"]+)"', smk.read_text()))
        found |= set(re.findall(r'\("(Paper \d)",', smk.read_text()))  # report.smk table
    return found


def snakemake_links(cats: set[str], files: list[str]) -> str:
    """The link targets Snakemake appends to every caption (snakemake/report/__init__.py)."""
    lines = ["", "", ".. _Workflow: javascript:show_panel('workflow')"]
    lines.append(".. _Statistics: javascript:show_panel('statistics')")
    lines += [f".. _{c}: javascript:app.showCategory('{c}')" for c in sorted(cats)]
    lines += [f".. _{f}: javascript:app.showResultInfo('{f}')" for f in files]
    return "\n".join(lines) + "\n"


def render(text: str, config: dict) -> tuple[str, str]:
    """(html body, docutils warnings) of one caption."""

    class Snakemake:
        pass

    Snakemake.config = config
    rst = jinja2.Environment().from_string(text).render(snakemake=Snakemake)
    warnings = io.StringIO()
    parts = publish_parts(rst, writer_name="html", settings_overrides={"warning_stream": warnings})
    return parts["html_body"], warnings.getvalue()


CONFIGS = {p.stem: yaml.safe_load(p.read_text()) for p in (REPO / "config").glob("*.yaml")}
FILES = ["otsd_bounds.png", "run_timings.png", "claims_paper1.html", "claims_paper2.html"]


def test_no_category_clashes_with_snakemake_targets() -> None:
    cats = categories()
    assert {"Paper 1", "Paper 2"} <= cats
    clash = {c for c in cats if c.lower() in {"workflow", "statistics"}}
    assert not clash, f"report categories {clash} duplicate Snakemake's own link targets"


@pytest.mark.parametrize("caption", sorted(p.name for p in REPORT.glob("*.rst")))
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_caption_renders_without_warnings(caption: str, config: str) -> None:
    text = (REPORT / caption).read_text() + snakemake_links(categories(), FILES)
    body, warnings = render(text, CONFIGS[config])
    assert warnings == "", warnings
    assert "System Message" not in body


def test_the_clash_is_detected() -> None:
    """Control: with a category named 'Workflow' the same rendering warns."""
    text = (REPORT / "run_timings.rst").read_text() + snakemake_links({"Workflow"}, FILES)
    _, warnings = render(text, CONFIGS["smoke"])
    assert "Duplicate explicit target name" in warnings


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_landing_page_shows_the_config_description(config: str) -> None:
    cfg = CONFIGS[config]
    body, _ = render((REPORT / "workflow.rst").read_text(), cfg)
    first_words = " ".join(cfg["description"].split()[:6])
    assert first_words.replace("_", "") in re.sub(r"<[^>]+>|_", "", " ".join(body.split()))
    assert f"{len(cfg['problems'])} problems" in body
    text = re.sub(r"<[^>]+>", "", body)
    for label in [*cfg["problems"], *cfg["methods"]]:
        assert label in text, label


def test_description_with_rst_specials_is_literal() -> None:
    cfg = dict(CONFIGS["smoke"], description="a *b* c_ `d` e|f \\g")
    body, warnings = render((REPORT / "workflow.rst").read_text(), cfg)
    assert warnings == ""
    assert "a *b* c_ `d` e|f \\g" in " ".join(body.split())


def _claims() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "claim_id": ["P1-C1", "P1-C2", "P1-C3"],
            "claim": ["a <b> & c", "second", "third"],
            "statistic": ["tau", "rho", "frac"],
            "value": [0.5, float("nan"), 3.0],
            "ci_low": [0.4, float("nan"), 2.0],
            "ci_high": [0.6, float("nan"), 4.0],
            "threshold": [0.3, 0.5, 5.0],
            "verdict": ["reproduced", "inconclusive", "not reproduced"],
            "n": [5, 0, 3],
            "note": ["", float("nan"), "few seeds"],
        }
    )


def test_claims_html_has_one_row_per_claim() -> None:
    page = claims_html(_claims(), "Paper 1 claims")
    rows = re.findall(r"<tr>.*?</tr>", page.split("<tbody>")[1])
    assert len(rows) == 3
    assert "a &lt;b&gt; &amp; c" in page and "<b> &" not in page
    assert 'class="ok">reproduced' in page and 'class="bad">not reproduced' in page
    assert "[0.4, 0.6]" in page and "n/a" in page
    with pytest.raises(ValueError, match="lacks columns"):
        claims_html(_claims().drop(columns=["verdict"]), "x")


def test_report_param_is_a_dict_with_a_short_str() -> None:
    section = {"n_boot": 200, "groups": {"ei": ["logei"] * 50}}
    p = report_param(section, "analysis")
    assert p == section and isinstance(p, dict)
    assert repr(p) == repr(section)  # Snakemake's params rerun trigger is unchanged
    assert str(p) == "config section 'analysis' (groups, n_boot)"
    assert len(str(report_param({f"k{i}": i for i in range(60)}, "x"))) < 120
    restored = pickle.loads(pickle.dumps(p))
    assert type(restored) is dict and restored == section
    assert report_param(None, "empty") == {} and isinstance(p, ReportParam)
