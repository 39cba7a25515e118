"""boexplore verify and the release's ledger: a row per run, an honest line where the ledger
does not show this CPU re-making the release, and ``--ci`` failing only where it does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boexplore import numerics
from boexplore.pipeline import ledger

REPO = Path(__file__).resolve().parents[2]

AMD_EPYC = {
    "vendor_id": "AuthenticAMD",
    "cpu family": "25",
    "model": "1",
    "model name": "AMD EPYC",
}
INTEL_XEON = {
    "vendor_id": "GenuineIntel",
    "cpu family": "6",
    "model": "207",
    "model name": "INTEL(R) XEON(R) PLATINUM 8581C",
}
AVX2 = {"avx2", "fma"}
AVX512 = AVX2 | {"avx512f", "avx512dq", "avx512bw", "avx512vl"}


def _as_cpu(monkeypatch, fields: dict[str, str], flags: set[str]) -> None:
    monkeypatch.setattr(numerics, "_cpuinfo_fields", lambda: dict(fields))
    monkeypatch.setattr(numerics, "cpu_flags", lambda: set(flags))
    monkeypatch.setattr(numerics, "cpu_model", lambda: fields["model name"])
    monkeypatch.setattr(numerics.platform, "machine", lambda: "x86_64")


def _table(diverged: bool, methods=("random", "logei")) -> pd.DataFrame:
    rows = []
    for method in methods:
        bad = diverged and method != "random"
        rows.append(
            {
                "problem": "lo_branin2",
                "method": method,
                "chunk": "seed0",
                "seed": 0,
                "evaluations": 40,
                "first_divergent_iteration": 3 if bad else None,
                "first_divergent_eval": 12 if bad else None,
                "max_abs_dx": 0.5 if bad else 2e-8,
                "max_abs_dy": 0.1 if bad else 1e-7,
                "cpu_seconds": 1.0,
                "profile": "portable",
                "prefix_evaluations": 0,
            }
        )
    table = pd.DataFrame(rows)
    for col in ("first_divergent_iteration", "first_divergent_eval"):
        table[col] = table[col].astype("Int64")
    return table


CONFIG = {"methods": {"random": "random", "logei": "logei"}}


def _ledger_rows(vendor_fields: dict[str, str], identical: bool, profile="portable"):
    cpu = {
        "vendor": numerics.VENDORS[vendor_fields["vendor_id"]],
        "family": int(vendor_fields["cpu family"]),
        "model_number": int(vendor_fields["model"]),
        "model": vendor_fields["model name"],
        "flags": {"avx2": True, "fma": True, "avx512f": False},
    }
    row = ledger.row_from_table(
        _table(not identical), CONFIG, tier="t", profile=profile, cpu=cpu, date="2026-12-05"
    )
    return pd.DataFrame([row], columns=list(ledger.COLUMNS))


def test_row_counts_jobs_model_jobs_and_traces():
    cpu = {"vendor": "AMD", "family": 25, "model_number": 1, "model": "AMD EPYC", "flags": {}}
    row = ledger.row_from_table(_table(True), CONFIG, tier="t", profile="portable", cpu=cpu)
    assert (row["jobs"], row["jobs_identical"], row["jobs_diverged"]) == (2, 1, 1)
    assert (row["model_jobs"], row["model_jobs_identical"]) == (1, 0)
    assert row["max_abs_dx"] == pytest.approx(0.5)


def test_coverage_follows_the_cpu_group_and_profile():
    rows = _ledger_rows(AMD_EPYC, identical=True)
    amd = {"vendor": "AMD", "family": 25, "model_number": 1, "model": "AMD EPYC"}
    intel = {"vendor": "Intel", "family": 6, "model_number": 207, "model": "Xeon"}
    assert ledger.coverage(rows, "portable", amd).status == "reproduces"
    assert ledger.coverage(rows, "release-2026-12-03", amd).status == "unmeasured"
    assert ledger.coverage(rows, "portable", intel).status == "unmeasured"
    both = pd.concat([rows, _ledger_rows(INTEL_XEON, identical=False)])
    assert ledger.coverage(both, "portable", intel).status == "diverges"
    assert ledger.coverage(both, "portable", amd, ["avx512f"]).status == "unsupported"


def test_committed_ledgers_seed_both_vendors():
    """The AMD rows from the committed verify tables and the Intel rows of issue 42."""
    for tier, profile in (("replicate", "release-2026-12-03"), ("replicate-long", "portable")):
        table = ledger.read(REPO / "data" / tier / "checks" / "ledger.csv")
        assert list(table.columns) == list(ledger.COLUMNS)
        assert set(table["cpu_vendor"]) == {"AMD", "Intel"}
        intel = {"vendor": "Intel", "family": 6, "model_number": 207, "model": "Xeon"}
        assert ledger.coverage(table, profile, intel).status == "diverges"
        amd = {"vendor": "AMD", "family": 25, "model_number": 17, "model": "AMD EPYC"}
        assert ledger.coverage(table, profile, amd).status == "reproduces"


def test_release_profile_names_the_vendor_it_needs():
    profile = numerics.get_profile("release-2026-12-03")
    assert profile.measured_vendors == ("AMD",)
    assert "AMD" in profile.description and "--claims" in profile.description


def test_cpu_info_reads_vendor_family_model(monkeypatch):
    _as_cpu(monkeypatch, INTEL_XEON, AVX512)
    info = numerics.cpu_info()
    assert (info["vendor"], info["family"], info["model_number"]) == ("Intel", 6, 207)
    assert info["flags"] == {"avx2": True, "fma": True, "avx512f": True}
    assert "Intel, family 6, model 207" in numerics.cpu_line(info)


# --- the verify command, with the BO re-run and the CPU faked --------------------------------


@pytest.fixture
def fake_verify(tmp_path, monkeypatch):
    """``boexplore verify`` on a one-problem release whose re-run returns ``state['table']``."""
    from boexplore.pipeline import integrity, verify
    from boexplore.pipeline import ledger as ledger_mod

    traces = tmp_path / "data" / "tier" / "traces"
    for method in ("random", "logei"):
        (traces / "lo_branin2" / method).mkdir(parents=True)
        pd.DataFrame({"x_0": np.zeros(2), "y": np.zeros(2)}).to_parquet(
            traces / "lo_branin2" / method / "seed0.parquet"
        )
    config = {
        "run_name": "tier",
        "release": {"traces": str(traces)},
        "problems": {"lo_branin2": {}},
        "methods": {"random": "random", "logei": "logei"},
        "numerics": {"profile": "portable"},
    }
    state: dict = {"table": _table(False)}
    monkeypatch.setattr("boexplore.workflow_config.load_config", lambda path: config)
    for var, value in numerics.profile_env("portable").items():  # already pinned: no re-exec
        monkeypatch.setenv(var, value)
    monkeypatch.setattr(numerics, "git_commit", lambda: "abc")
    monkeypatch.setattr(integrity, "check_file", lambda path: None)
    monkeypatch.setattr(verify, "verify_release", lambda *a, **k: state["table"].copy())
    monkeypatch.chdir(tmp_path)
    state["ledger"] = ledger_mod.ledger_path(config)

    def run(*extra: str) -> int:
        from boexplore.cli import main

        return main(["verify", "--configfile", "c.yaml", "--sample", "0", *extra])

    state["run"] = run
    return state


def _notice_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("note: ")]


def test_verify_on_a_cpu_the_ledger_does_not_cover_says_so_once(fake_verify, monkeypatch, capsys):
    """Intel CPU, the ledger shows only AMD: one line before the per-job output, naming
    --claims; the run's row is appended to the release's ledger."""
    ledger.append(fake_verify["ledger"], _ledger_rows(AMD_EPYC, True).iloc[0].to_dict())
    _as_cpu(monkeypatch, INTEL_XEON, AVX512)
    fake_verify["table"] = _table(True)
    assert fake_verify["run"]() == 0
    out = capsys.readouterr().out
    notes = _notice_lines(out)
    assert len(notes) == 1 and "--claims" in notes[0] and "Intel family 6 model 207" in notes[0]
    assert out.index(notes[0]) < out.index("lo_branin2/logei/seed0 seed 0")
    rows = ledger.read(fake_verify["ledger"])
    assert len(rows) == 2
    new = rows.iloc[-1]
    assert (new["cpu_vendor"], new["cpu_family"], new["cpu_model_number"]) == ("Intel", 6, 207)
    assert (new["jobs_diverged"], new["model_jobs_identical"], new["avx512f"]) == (1, 0, "yes")
    assert new["source"] == ledger.SOURCE_VERIFY and new["git_commit"] == "abc"


def test_verify_where_the_ledger_shows_identity_is_unchanged(fake_verify, monkeypatch, capsys):
    ledger.append(fake_verify["ledger"], _ledger_rows(AMD_EPYC, True).iloc[0].to_dict())
    _as_cpu(monkeypatch, AMD_EPYC, AVX2)
    assert fake_verify["run"]() == 0
    assert _notice_lines(capsys.readouterr().out) == []


def test_verify_on_a_cpu_without_the_profiles_flags_says_so(fake_verify, monkeypatch, capsys):
    ledger.append(fake_verify["ledger"], _ledger_rows(AMD_EPYC, True).iloc[0].to_dict())
    _as_cpu(monkeypatch, AMD_EPYC, {"sse4_2"})
    assert fake_verify["run"]() == 0
    (note,) = _notice_lines(capsys.readouterr().out)
    assert "lacks avx2 fma" in note


@pytest.mark.parametrize(
    ("fields", "diverged", "code"),
    [(AMD_EPYC, True, 1), (AMD_EPYC, False, 0), (INTEL_XEON, True, 0), (INTEL_XEON, False, 0)],
)
def test_ci_fails_only_where_the_ledger_promises_identity(
    fake_verify, monkeypatch, capsys, tmp_path, fields, diverged, code
):
    ledger.append(fake_verify["ledger"], _ledger_rows(AMD_EPYC, True).iloc[0].to_dict())
    _as_cpu(monkeypatch, fields, AVX512)
    fake_verify["table"] = _table(diverged)
    scratch = tmp_path / "ci-ledger.csv"
    assert fake_verify["run"]("--ci", "--ledger", str(scratch)) == code
    assert "CI: " in capsys.readouterr().out
    assert len(ledger.read(fake_verify["ledger"])) == 1  # the release's ledger is only read
    assert len(ledger.read(scratch)) == 1


def test_ci_prints_its_cpu_and_verifies_jobs_of_the_release():
    """.ci/run: the CPU line first, then ``verify --ci`` on jobs the long tier holds."""
    import re
    import shlex

    from boexplore.pipeline import verify
    from boexplore.workflow_config import load_config

    text = (REPO / ".ci" / "run").read_text()
    commands = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert commands[2] == "python3.11 src/boexplore/numerics.py"  # after set -e and cd
    call = re.search(r"^boexplore verify [^\n]*--ci(?:[^\n]*\\\n)*[^\n]*$", text, re.M)
    assert call is not None
    argv = shlex.split(call.group(0).replace("\\\n", " "))
    config = load_config(REPO / argv[argv.index("--configfile") + 1])
    only = argv[argv.index("--only") + 1 : argv.index("--ledger")]
    held = {
        f"{j.problem}/{j.method}/{j.chunk}"
        for j in verify.release_jobs(REPO / config["release"]["traces"], config)
    }
    assert 2 <= len(only) <= 3 and set(only) <= held
    assert any(not ledger.uses_model(config, j.split("/")[1]) for j in only)
