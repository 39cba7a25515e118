"""Release layout (issue 58): each seed in one file, each file read by a job of its config.

Checked on damaged copies of a small release: a seed held in two files, an orphan file, a
seed a release holds again at the same length as the release it extends; and ``release
export`` removing the chunk an earlier export grouped otherwise.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boexplore.cli import main as cli_main
from boexplore.pipeline import integrity
from boexplore.pipeline.release import export_traces, restore_files, write_manifest
from boexplore.pipeline.release_layout import audit_layout, duplicate_damage, job_reads
from boexplore.workflow_config import validate_config

BUDGET = 8


def _trace(path: Path, seeds: list[int], n: int = BUDGET) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(
        {
            "seed": np.repeat(seeds, n).astype(np.int64),
            "y": np.tile(np.arange(n, dtype=np.float32), len(seeds)),
        }
    )
    frame.to_parquet(path)
    return path


def _config(root: Path, extend_from: str | None = None, **extra) -> dict:
    release = {"traces": str(root)}
    if extend_from:
        release["extend_from"] = [extend_from]
    return validate_config(
        {
            "run_name": "lay",
            "problems": {"p": {"name": "branin", "dim": 2}},
            "methods": {"m": "random", "x": "random"},
            "seeds": [0, 1, 2, 3],
            "seeds_per_job": 2,
            "budget": BUDGET,
            "n_init": 4,
            "parametric": {"enabled": False},
            "release": release,
            **extra,
        }
    )


def _release(tmp_path: Path) -> Path:
    """A sealed release that the config of :func:`_config` reads whole: p/m/seeds0-1, 2-3."""
    root = tmp_path / "rel" / "traces"
    _trace(root / "p" / "m" / "seeds0-1.parquet", [0, 1])
    _trace(root / "p" / "m" / "seeds2-3.parquet", [2, 3])
    write_manifest(root, root.parent / "manifest.csv")
    return root


def _config_file(tmp_path: Path, root: Path) -> Path:
    path = tmp_path / "lay.yaml"
    path.write_text(
        "run_name: lay\nproblems: {p: {name: branin, dim: 2}}\n"
        "methods: {m: random, x: random}\nseeds: [0, 1, 2, 3]\nseeds_per_job: 2\n"
        f"budget: {BUDGET}\nn_init: 4\nparametric: {{enabled: false}}\n"
        f"release: {{traces: {root}}}\n"
    )
    return path


def test_the_chunks_of_a_config_are_what_the_release_is_built_from(tmp_path):
    root = _release(tmp_path)
    reads = job_reads(_config(root))
    assert reads == {
        root / "p" / "m" / "seeds0-1.parquet": ["p/m/seeds0-1"],
        root / "p" / "m" / "seeds2-3.parquet": ["p/m/seeds2-3"],
    }
    assert audit_layout(_config(root), "lay.yaml").damages == []


def test_a_seed_in_two_files_fails_verify_naming_both(tmp_path, capsys):
    root = _release(tmp_path)
    config = _config_file(tmp_path, root)
    assert cli_main(["verify", "--integrity", "--configfile", str(config)]) == 0
    capsys.readouterr()

    stale = _trace(root / "p" / "m" / "seed0.parquet", [0])  # an earlier export's chunk
    write_manifest(root, root.parent / "manifest.csv")  # listed and sealed, as in the issue
    assert integrity.audit_release(root).damages == []  # the hashes alone see nothing
    assert cli_main(["verify", "--integrity", "--configfile", str(config)]) == 1
    out = capsys.readouterr().out
    kept = root / "p" / "m" / "seeds0-1.parquet"
    held = next(line for line in out.splitlines() if "held in 2 release files" in line)
    assert held.startswith("p/m: seed 0 held") and str(kept) in held and str(stale) in held
    assert f"is read by no job of {config}" in out
    assert f"release drop {stale}" in out  # the way out names the unread copy

    assert integrity.drop_from_release(stale)
    assert cli_main(["verify", "--integrity", "--configfile", str(config)]) == 0


def test_an_orphan_file_fails_and_an_excluded_cell_is_kept(tmp_path):
    root = _release(tmp_path)
    orphan = _trace(root / "gone" / "m" / "seeds0-1.parquet", [0, 1])  # a problem no longer run
    write_manifest(root, root.parent / "manifest.csv")
    damages = audit_layout(_config(root), "lay.yaml").damages
    assert [d.file for d in damages] == [orphan]
    assert "read by no job of lay.yaml" in damages[0].message()

    _trace(root / "p" / "x" / "seeds0-1.parquet", [0, 1])  # a cell the config cuts whole
    orphan.unlink()
    cut = _config(root, exclude=[{"problem": "p", "method": "x", "reason": "cut"}])
    audit = audit_layout(cut, "lay.yaml")
    assert audit.damages == [] and "p/x/seeds0-1.parquet" in " ".join(audit.notes)
    assert [d.file.name for d in audit_layout(_config(root), "lay.yaml").damages] == []  # read
    assert restore_files(_config(root)["release"], "p", "x", "seeds0-1", [0, 1], BUDGET)


@pytest.mark.parametrize(("evaluations", "duplicate"), [(BUDGET, True), (2 * BUDGET, False)])
def test_a_seed_held_again_by_the_extending_release(tmp_path, evaluations, duplicate):
    """The same length in both releases is a copy; a longer trace extends the shorter one."""
    base = _release(tmp_path)
    own = tmp_path / "own" / "traces"
    mine = _trace(own / "p" / "m" / "seeds0-1.parquet", [0, 1], evaluations)
    damages = duplicate_damage([own, base])
    assert bool(damages) is duplicate
    if duplicate:
        text = damages[0].message()
        assert str(mine) in text and str(base / "p" / "m" / "seeds0-1.parquet") in text
        assert damages[0].file == mine and f"release drop {mine}" in text  # never the base's


def test_export_removes_the_chunk_an_earlier_export_grouped_otherwise(tmp_path, capsys):
    runs, out = tmp_path / "runs", tmp_path / "rel" / "traces"
    _trace(runs / "p" / "m" / "seeds0-1.parquet", [0, 1])
    export_traces(runs, out)
    write_manifest(out, out.parent / "manifest.csv")
    (runs / "p" / "m" / "seeds0-1.parquet").unlink()  # the config now groups seeds by four
    _trace(runs / "p" / "m" / "seeds0-3.parquet", [0, 1, 2, 3])
    _trace(runs / "p" / "x" / "seeds0-1.parquet", [0, 1])

    written = export_traces(runs, out)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.parquet")) == [
        "p/m/seeds0-3.parquet",
        "p/x/seeds0-1.parquet",
    ]
    assert {p.name for p in written} == {"seeds0-3.parquet", "seeds0-1.parquet"}
    assert "removed superseded" in capsys.readouterr().out
    rows = integrity.read_manifest(out.parent / "manifest.csv")
    assert ("p", "m", "seeds0-1") not in rows  # its manifest row went with it, re-sealed
    assert integrity.manifest_damage(out) == []


def test_a_damaged_copy_of_the_decide_release_fails_and_its_cleaned_copy_passes(
    tmp_path, monkeypatch, capsys
):
    """One cell of the committed decide release, copied, with the stale chunk the issue found
    put back (seeds 8 and 9 beside seeds8-11): the tier's own config names both files."""
    import shutil

    from wfhelpers import REPO

    cell = Path("data/replicate-decide/traces/lo_branin2/ts")
    shutil.copytree(REPO / cell, tmp_path / cell)
    root = tmp_path / "data/replicate-decide/traces"
    write_manifest(root, root.parent / "manifest.csv")
    monkeypatch.chdir(tmp_path)
    config = str(REPO / "config" / "replicate-decide.yaml")
    assert cli_main(["verify", "--integrity", "--configfile", config]) == 0
    capsys.readouterr()

    kept = cell / "seeds8-11.parquet"
    trace = pd.read_parquet(kept)
    stale = cell / "seeds8-9.parquet"
    trace[trace["seed"].isin([8, 9])].to_parquet(stale)
    write_manifest(root, root.parent / "manifest.csv")  # listed and sealed
    assert cli_main(["verify", "--integrity", "--configfile", config]) == 1
    out = capsys.readouterr().out
    held = next(line for line in out.splitlines() if "held in 2 release files" in line)
    assert held.startswith("lo_branin2/ts: seeds 8 9 held")
    assert f"{kept} (40 evaluations, read by lo_branin2/ts/seeds8-11)" in held
    assert f"{stale} (40 evaluations, read by no job)" in held
    assert f"release file {stale} (seeds 8 9) is read by no job of {config}" in out

    integrity.drop_from_release(stale)
    assert cli_main(["verify", "--integrity", "--configfile", config]) == 0
