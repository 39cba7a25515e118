"""Release integrity (issue 39): committed releases intact, manifest commands, figure sidecars.

The damage cases themselves are the fault suite's (tests/faults/test_release_damage.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from wfhelpers import REPO

from boexplore.cli import main as cli_main
from boexplore.pipeline import integrity
from boexplore.pipeline.release import main as release_main
from boexplore.pipeline.release import write_manifest


def test_every_committed_release_and_figure_is_intact(monkeypatch, capsys):
    """What CI runs (`boexplore verify --integrity`): every release under data/ against its
    sealed manifest, every figure sidecar against the committed tables."""
    monkeypatch.chdir(REPO)
    code = cli_main(["verify", "--integrity"])
    out = capsys.readouterr().out
    assert code == 0, out
    for root in ("data/replicate/traces", "data/replicate-long/traces"):
        assert f"{root}: " in out and integrity.read_seal(REPO / root / ".." / "manifest.csv")
    # each release's layout against its config's jobs: each seed in one file, every file read
    for tier in ("replicate", "replicate-long", "replicate-decide", "replicate-beyond-d"):
        line = f"data/{tier}/traces layout (jobs of config/{tier}.yaml): "
        assert line in out and "files checked, OK" in out.split(line)[1].splitlines()[0]


def _release(tmp_path: Path) -> Path:
    traces = tmp_path / "rel" / "traces"
    for seed in (0, 1):
        path = traces / "p" / "m" / f"seed{seed}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"seed": [seed] * 3, "y": np.arange(3, dtype=np.float32)}).to_parquet(path)
    return traces


def test_manifest_is_sealed_and_a_rebuild_does_not_accept_a_changed_file(tmp_path, capsys):
    traces = _release(tmp_path)
    manifest = traces.parent / "manifest.csv"
    assert release_main(["manifest", str(traces), str(manifest)]) == 0
    assert integrity.read_seal(manifest) == integrity.manifest_digest(manifest)
    assert integrity.audit_release(traces).damages == []

    changed = traces / "p" / "m" / "seed1.parquet"
    pd.DataFrame({"seed": [1] * 3, "y": np.ones(3, np.float32)}).to_parquet(changed)
    before = manifest.read_bytes()
    assert release_main(["manifest", str(traces), str(manifest)]) == 1  # refused
    assert "differ from their rows" in capsys.readouterr().out
    assert manifest.read_bytes() == before
    args = ["manifest", str(traces), str(manifest), "--accept-changed"]
    assert release_main(args) == 0  # re-made on purpose
    assert integrity.audit_release(traces).damages == []


def test_seal_checks_every_row_first_and_drop_keeps_the_other_rows(tmp_path):
    traces = _release(tmp_path)
    manifest = traces.parent / "manifest.csv"
    write_manifest(traces, manifest)
    integrity.seal_path(manifest).unlink()
    assert [d.file for d in integrity.audit_release(traces).damages] == [manifest]  # unsealed
    (traces / "p" / "m" / "seed0.parquet").write_bytes(b"x")
    assert release_main(["seal", str(manifest)]) == 1  # a row does not match: not sealed
    assert not integrity.seal_path(manifest).exists()

    assert release_main(["drop", str(traces / "p" / "m" / "seed0.parquet")]) == 1  # unsealed
    assert release_main(["seal", "--traces", str(traces), str(manifest)]) == 1
    (traces / "p" / "m" / "seed0.parquet").unlink()
    rows = manifest.read_text().splitlines()
    manifest.write_text("\n".join(r for r in rows if ",seed0," not in r) + "\n")
    assert release_main(["seal", str(manifest)]) == 0

    assert release_main(["drop", str(traces / "p" / "m" / "seed1.parquet")]) == 0
    assert not (traces / "p" / "m" / "seed1.parquet").exists()
    assert pd.read_csv(manifest).empty and integrity.audit_release(traces).damages == []


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_figure_drawn_from_another_version_of_a_committed_table_is_reported(tmp_path):
    tables = tmp_path / "data" / "x" / "tables"
    tables.mkdir(parents=True)
    (tables / "t.csv").write_text("a\n1\n")
    figures = tmp_path / "figures" / "x"
    figures.mkdir(parents=True)

    def sidecar(name: str, sha: str) -> None:
        inputs = [{"path": "results/x/tables/t.csv", "sha256": sha},
                  {"path": "results/x/tables/not_committed.parquet", "sha256": "0" * 64}]  # fmt: skip
        (figures / f"{name}.json").write_text(json.dumps({"figure": name, "inputs": inputs}))

    sidecar("fresh", _sha(tables / "t.csv"))
    sidecar("stale", "1" * 64)
    audit = integrity.audit_figures(figures, {"x": tables})
    assert audit.checked == 2 and [d.file.name for d in audit.damages] == ["stale.png"]
    message = audit.damages[0].message()
    assert "results/x/tables/t.csv" in message and _sha(tables / "t.csv") in message
    assert "1" * 64 in message


def test_integrity_of_a_config_covers_the_releases_it_extends(tmp_path, monkeypatch, capsys):
    traces = _release(tmp_path)
    write_manifest(traces, traces.parent / "manifest.csv")
    (tmp_path / "c.yaml").write_text(
        "run_name: ext\nproblems: {p: {name: branin, dim: 2}}\nmethods: {m: random}\n"
        "seeds: [0, 1]\nbudget: 8\nn_init: 4\nparametric: {enabled: false}\n"
        "release: {traces: own/traces, extend_from: rel/traces}\n"
    )
    monkeypatch.chdir(tmp_path)
    assert cli_main(["verify", "--integrity", "--configfile", "c.yaml"]) == 0
    out = capsys.readouterr().out
    assert "own/traces: OK (absent" in out and "rel/traces: 2 files checked, OK" in out
    (traces / "p" / "m" / "seed0.parquet").write_bytes(b"damaged")
    assert cli_main(["verify", "--integrity", "--configfile", "c.yaml"]) == 1
    assert "rel/traces/p/m/seed0.parquet does not match" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["verify", "--sample", "2"], ["verify"]])
def test_verify_without_a_config_needs_integrity(argv, capsys):
    assert cli_main(argv) == 2
    assert "--configfile is required" in capsys.readouterr().err
