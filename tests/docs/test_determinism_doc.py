"""docs/determinism.md: every measured number is rendered from its committed table."""

from __future__ import annotations

import pandas as pd

from boexplore.reporting import determinism_doc as dd


def test_page_equals_its_rendering_from_the_committed_tables():
    text = dd.PAGE.read_text()
    assert dd.render_page(text) == text, "run python -m boexplore.reporting.determinism_doc"


def test_every_table_is_committed_and_rendered():
    text = dd.PAGE.read_text()
    for name, (path, _) in dd.RENDERERS.items():
        assert path.exists(), f"{path} is missing"
        start = text.index(f"<!-- BEGIN generated:{name} -->\n")
        body = text[start : text.index(f"<!-- END generated:{name} -->")].split("\n", 1)[1]
        assert "\n|" in "\n" + body, f"region {name} holds no table"


def test_control_a_changed_table_makes_the_page_stale(tmp_path, monkeypatch):
    table = pd.read_csv(dd.CAUSES)
    table.loc[0, "first_divergent_iteration"] = 999
    changed = tmp_path / "causes.csv"
    table.to_csv(changed, index=False)
    monkeypatch.setitem(dd.RENDERERS, "causes", (changed, dd.render_causes))
    text = dd.PAGE.read_text()
    assert dd.render_page(text) != text


def test_control_a_new_ledger_row_makes_the_page_stale(tmp_path, monkeypatch):
    """The ledger region is rendered from every data/<tier>/checks/ledger.csv."""
    from boexplore.pipeline import ledger

    for path in dd.LEDGERS.glob("*/checks/ledger.csv"):
        dst = tmp_path / path.relative_to(dd.LEDGERS)
        dst.parent.mkdir(parents=True)
        dst.write_text(path.read_text())
    monkeypatch.setitem(dd.RENDERERS, "ledger", (tmp_path, dd.render_ledger))
    text = dd.PAGE.read_text()
    assert dd.render_page(text) == text
    row = ledger.read(tmp_path / "replicate/checks/ledger.csv").iloc[-1].to_dict()
    ledger.append(tmp_path / "replicate/checks/ledger.csv", {**row, "jobs_identical": 1})
    assert dd.render_page(text) != text
