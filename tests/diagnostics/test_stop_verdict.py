"""The stop rule says its committed verdict (P1-U2): diagnose's advice line, StopRule, the
package's copy of the table rows; a fabricated 'reproduced' table changes the line (control)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from boexplore.cli import main
from boexplore.diagnostics import StopRule, load_stop_verdict
from boexplore.diagnostics import stopping as stopping_module
from boexplore.diagnostics import verdict as vm
from boexplore.workflow_config import load_config

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "data/replicate-decide/tables"
TRACE = ROOT / "data/replicate/traces/lo_branin2/logei/seeds0-3.parquet"  # the rule fires on seed 0
SHIPPED = ROOT / "src/boexplore/diagnostics" / vm.SHIPPED

needs_tables = pytest.mark.skipif(
    not (TABLES / "claims_paper1.csv").exists(), reason="no committed claims table"
)


def _row() -> pd.Series:
    claims = pd.read_csv(TABLES / "claims_paper1.csv")
    return claims[claims["claim_id"] == "P1-U2"].iloc[0]


def _advice(capsys, *extra: str) -> list[str]:
    args = ["diagnose", str(TRACE), "--seed", "0", "-o", "/dev/null", *extra]
    assert main(args) == 0
    return [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("stop rule")]


@needs_tables
def test_packaged_rows_equal_the_committed_table() -> None:
    """The installed package's copy is the P1-U2 rows of the committed tables (--sync)."""
    for name, text in vm.shipped_rows(TABLES).items():
        assert (SHIPPED / name).read_text() == text, f"run python -m {vm.__name__} --sync"
    units = pd.read_csv(SHIPPED / "claims_paper1_units.csv")
    assert len(units) > 0 and set(units["claim_id"]) == {"P1-U2"}


@needs_tables
def test_diagnose_prints_the_committed_verdict_when_it_offers_a_stop(capsys) -> None:
    lines = _advice(capsys)
    assert lines[0].startswith("stop rule: would stop after")  # the rule fires on this trace
    assert len(lines) == 2, lines
    line, row = lines[1], _row()
    assert line == load_stop_verdict().advice_line()
    # matches the table: its verdict, saved fraction and the losses of rule and incumbent-only
    loss = re.search(
        r"mean loss in gap: rule ([\d.]+), random stop [\d.]+, incumbent rule ([\d.]+)", row["note"]
    )
    assert loss is not None
    assert line.startswith(f"stop rule verdict: {row['verdict']} (P1-U2, decide tier")
    assert f"saved {row['value']:.1%} of evaluations" in line
    assert f"of {float(loss[1]):.3g}, against {float(loss[2]):.3g} for the incumbent-only" in line
    if row["verdict"] == "not reproduced":
        assert "the claimed saving" in line and "was not reproduced" in line
    # where it loses, by d, from the units table
    units = pd.read_csv(TABLES / "claims_paper1_units.csv").query("claim_id == 'P1-U2'")
    inc = units[(units["part"] == "U2d")]
    hi = inc[inc["dim"] >= vm.HIGH_D_MIN]
    n_hi_against = int((hi["outcome"] == "against").sum())
    span = f"d = {hi['dim'].min()}–{hi['dim'].max()}"
    assert f"{span}: {n_hi_against} of {len(hi)})" in line


@needs_tables
def test_a_fabricated_reproduced_table_changes_the_line(tmp_path: Path, capsys) -> None:
    """Control: the same run against a table whose P1-U2 reads 'reproduced'."""
    fake = tmp_path / "fake" / "tables"
    fake.mkdir(parents=True)
    for name in vm.FILES:
        shutil.copy(TABLES / name, fake / name)
    claims = pd.read_csv(fake / "claims_paper1.csv")
    claims.loc[claims["claim_id"] == "P1-U2", "verdict"] = "reproduced"
    claims.to_csv(fake / "claims_paper1.csv", index=False)
    units = pd.read_csv(fake / "claims_paper1_units.csv")
    units.loc[units["claim_id"] == "P1-U2", "outcome"] = "for"
    units.to_csv(fake / "claims_paper1_units.csv", index=False)
    real = _advice(capsys)[1]
    line = _advice(capsys, "--claims-tables", str(fake))[1]
    assert line != real
    assert line.startswith("stop rule verdict: reproduced (P1-U2, fake tier")
    assert "the claimed saving" in line and " held: " in line
    assert "not reproduced" not in line and "lost" not in line


def test_no_verdict_line_without_a_stop(tmp_path: Path, capsys) -> None:
    import numpy as np

    df = pd.read_parquet(TRACE).query("seed == 1").assign(y=np.arange(40.0))  # always improving
    df.to_csv(tmp_path / "up.csv", index=False)
    assert main(["diagnose", str(tmp_path / "up.csv"), "-o", str(tmp_path / "tl.csv")]) == 0
    err = capsys.readouterr().err
    assert "never fired" in err and "stop rule verdict" not in err


@needs_tables
def test_installed_package_reads_its_copy(monkeypatch) -> None:
    """Without the checkout's data/ the shipped rows give the same verdict and line."""
    monkeypatch.setattr(vm, "REPO_TABLES", Path("/nonexistent/tables"))
    v = load_stop_verdict()
    assert vm.SHIPPED in v.source
    monkeypatch.undo()
    assert v.advice_line() == load_stop_verdict().advice_line()


@needs_tables
def test_stop_rule_docstring_states_the_table_verdict() -> None:
    doc = stopping_module.__doc__ or ""
    m = re.search(r"Committed verdict \(P1-U2, decide tier\): ([a-z ]+?) —", doc)
    assert m is not None and m[1] == _row()["verdict"]
    assert "verdict" in (StopRule.__doc__ or "")
    assert StopRule.verdict().verdict == _row()["verdict"]


@needs_tables
def test_d_sides_and_unit_parts_follow_the_config_and_tables() -> None:
    analysis = load_config(ROOT / "config/replicate-decide.yaml")["analysis"]
    assert (vm.LOW_D_MAX, vm.HIGH_D_MIN) == (analysis["low_d_max"], analysis["high_d_min"])
    v = load_stop_verdict()
    for part in v.parts:
        units = [u for u in v.units if u.part == part.name]
        if units:  # the per-problem parts: one unit per decide problem
            assert len(units) == part.n_units, part.name
    assert {u.part for u in v.units} <= {p.name for p in v.parts}


def test_user_rule_other_than_the_default_is_named(capsys) -> None:
    if not TRACE.exists():
        pytest.skip("no release trace")
    assert main(["diagnose", str(TRACE), "--seed", "0", "-o", "/dev/null", "--window", "3"]) == 0
    err = capsys.readouterr().err
    if "would stop" in err:
        assert "is untested" in err


@needs_tables
def test_diagnostics_page_states_the_generated_verdict() -> None:
    from boexplore.reporting import results_text as rt

    page = (ROOT / "docs/diagnostics.md").read_text()
    bodies = {m["name"]: m["body"] for m in rt.REGION.finditer(page)}
    body = bodies["stop-verdict-replicate-decide"]
    assert body == rt.render("stop-verdict-replicate-decide", ROOT)  # generated, not typed
    assert load_stop_verdict().advice_line() in body  # the line diagnose prints
    assert f"P1-U2, decide tier: {_row()['verdict']}" in body
    assert "uses-replicate-decide" in bodies
