"""Issue 39: a damaged data release is refused, never restored silently.

A small release (Branin, ``random``, seeds 0 and 1 in one file, budget 8) with its sealed
manifest is damaged in one way per case; restoring from it, extending it, the workflow's job
graph and ``boexplore verify --integrity`` must each stop with one message naming the file,
the expected and found sha256 and the ways out.

What the code before issue 39 did with each case (checked against that commit's release.py
and workflow, which never read the manifest):

- ``flip_start`` (first byte of the Parquet magic): restored with exit 0 and the same values,
  the damage unnoticed;
- ``flip_middle`` (the data byte nearest the middle whose flip still reads): restored with
  exit 0 and one objective value different from the committed one -- the case of the issue;
- ``flip_footer`` (last byte), ``truncated``, ``empty``: unreadable; the workflow stopped
  (exit 1) with pyarrow's traceback from the job graph's input function ("Parquet magic
  bytes not found in footer", "file size is 0 bytes"), no manifest, hash or way out named;
  ``restore_trace`` raised the same bare pyarrow error;
- ``deleted``: the job fell back to BO (``bo_run``, exit 0), nothing said;
- ``unlisted`` (an extra trace file the manifest does not list): used like any other
  (``restore_trace`` restored it, the workflow restored the job, exit 0);
- ``edited_row`` (a manifest row's sha256 and row count edited): not read, restored, exit 0.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from wfhelpers import run_snakemake

from boexplore.bo.loop import run_bo
from boexplore.cli import main as cli_main
from boexplore.pipeline.integrity import ReleaseIntegrityError, check_job_release
from boexplore.pipeline.release import (
    compact,
    export_traces,
    read_released,
    restore_seeds,
    restore_trace,
    write_manifest,
)
from boexplore.problems import get_problem

pytestmark = pytest.mark.faults

CHUNK = Path("b2/random/seeds0-1.parquet")
RUN_FILE = "results/rel/runs/b2/random/seeds0-1.parquet"


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """A finished study's run files (float64), made once for the module."""
    runs = tmp_path_factory.mktemp("made")
    problem = get_problem("branin", 2)
    trace = pd.concat(
        [run_bo(problem, "random", seed=s, budget=8, n_init=4, problem_label="b2") for s in (0, 1)]
    )
    (runs / CHUNK).parent.mkdir(parents=True)
    trace.to_parquet(runs / CHUNK, index=False)
    return runs


@pytest.fixture
def release(made, tmp_path) -> Path:
    """``data/rel/traces`` with its sealed manifest; a config restoring from it."""
    traces = tmp_path / "data" / "rel" / "traces"
    export_traces(made, traces)
    write_manifest(traces, traces.parent / "manifest.csv")
    (tmp_path / "rel.yaml").write_text(
        "run_name: rel\nproblems: {b2: {name: branin, dim: 2}}\nmethods: {random: random}\n"
        "seeds: [0, 1]\nseeds_per_job: 2\nbudget: 8\nn_init: 4\n"
        "parametric: {enabled: false}\nrelease: {traces: data/rel/traces}\n"
    )
    return traces


def _flip(position: Callable[[bytes], int]) -> Callable[[Path], Path]:
    def damage(traces: Path) -> Path:
        path = traces / CHUNK
        raw = bytearray(path.read_bytes())
        raw[position(bytes(raw))] ^= 0x10
        path.write_bytes(bytes(raw))
        return path

    return damage


def _value_changing_byte(raw: bytes) -> int:
    """The byte nearest the middle whose flip leaves a readable file with another objective
    value (``y``) and every other column intact in shape."""
    good = pd.read_parquet(io.BytesIO(raw))
    mid = len(raw) // 2
    for offset in range(len(raw)):
        for at in (mid + offset, mid - offset):
            if not 0 <= at < len(raw):
                continue
            bad = bytearray(raw)
            bad[at] ^= 0x10
            try:
                back = pd.read_parquet(io.BytesIO(bytes(bad)))
            except Exception:  # noqa: BLE001 - unreadable: not the silent case
                continue
            same_shape = len(back) == len(good) and list(back.columns) == list(good.columns)
            if same_shape and not back["y"].equals(good["y"]):
                return at
    raise AssertionError("no byte flip changes a value and still reads")


def _truncated(traces: Path) -> Path:
    path = traces / CHUNK
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return path


def _empty(traces: Path) -> Path:
    path = traces / CHUNK
    path.write_bytes(b"")
    return path


def _deleted(traces: Path) -> Path:
    path = traces / CHUNK
    path.unlink()
    return path


def _unlisted(traces: Path) -> Path:
    """A valid trace of seed 9 next to the released one, not in the manifest."""
    extra = pd.read_parquet(traces / CHUNK)
    extra = compact(extra[extra["seed"] == 0].assign(seed=9))
    path = traces / CHUNK.parent / "seed9.parquet"
    extra.to_parquet(path, index=False)
    return path


def _edited_row(traces: Path) -> Path:
    """The chunk's manifest row says 15 rows and another sha256 (no new seal)."""
    manifest = traces.parent / "manifest.csv"
    table = pd.read_csv(manifest, dtype=str, keep_default_na=False)
    table.loc[0, "rows"] = "15"
    table.loc[0, "sha256"] = "0" * 64
    table.to_csv(manifest, index=False)
    return manifest


CASES: dict[str, Callable[[Path], Path]] = {
    "flip_start": _flip(lambda raw: 0),
    "flip_middle": _flip(_value_changing_byte),
    "flip_footer": _flip(lambda raw: len(raw) - 1),
    "truncated": _truncated,
    "empty": _empty,
    "deleted": _deleted,
    "unlisted": _unlisted,
    "edited_row": _edited_row,
}


def _expected_words(case: str, damaged: Path, listed_sha: str) -> list[str]:
    """What the one message must say: the file, the hashes, the ways out."""
    if case == "edited_row":
        return [str(damaged), "manifest.sha256", "expected", "found", "git checkout --"]
    if case == "unlisted":
        return [str(damaged), "not listed", "found sha256", f"rm {damaged}", "release manifest"]
    if case == "deleted":
        return [str(damaged), "missing", f"expected {listed_sha}", "git checkout --", "drop"]
    return [str(damaged), f"expected {listed_sha}", "found ", "git checkout --", "drop"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_damage_is_refused_by_restore_extend_and_integrity_check(
    case, release, tmp_path, monkeypatch, capsys
):
    listed_sha = pd.read_csv(release.parent / "manifest.csv")["sha256"].iloc[0]
    damaged = CASES[case](release)
    chunk = release / CHUNK
    dst = tmp_path / "restored.parquet"
    words = _expected_words(case, damaged, listed_sha)

    # restore (restore_run's script), restore by seed, extend (bo_run's released prefix)
    used = damaged if case == "unlisted" else chunk
    for attempt in (
        lambda: restore_trace(used, dst),
        lambda: restore_seeds([used], [9] if case == "unlisted" else [0, 1], dst),
        lambda: read_released([used]),
    ):
        with pytest.raises(ReleaseIntegrityError) as err:
            attempt()
        for word in words:
            assert word in str(err.value), (word, str(err.value))
        assert not dst.exists()  # nothing written
    # the job graph's check (restore_run and bo_run input functions)
    with pytest.raises(ReleaseIntegrityError, match="b2/random"):
        check_job_release([release], "b2", "random")

    # boexplore verify --integrity: exit 1, the damaged file named
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli_main(["verify", "--integrity", "--configfile", "rel.yaml"]) == 1
    out = capsys.readouterr().out
    rel = damaged.relative_to(tmp_path)
    assert str(rel) in out and "DAMAGED" in out, out


def test_intact_release_restores_and_passes_the_check(release, tmp_path, monkeypatch, capsys):
    """Control: the same release undamaged restores and is reported intact."""
    out = restore_trace(release / CHUNK, tmp_path / "r.parquet")
    assert len(pd.read_parquet(out)) == 16
    check_job_release([release], "b2", "random")
    monkeypatch.chdir(tmp_path)
    assert cli_main(["verify", "--integrity", "--configfile", "rel.yaml"]) == 0
    assert "intact" in capsys.readouterr().out


@pytest.mark.parametrize("case", sorted(CASES))
def test_workflow_refuses_a_damaged_release_instead_of_restoring_or_running_bo(
    case, release, tmp_path
):
    damaged = CASES[case](release)
    proc = run_snakemake(["-n", RUN_FILE, "--cores", "1", "--configfile", "rel.yaml"],
                         cwd=tmp_path, timeout=300)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-3000:]
    assert str(damaged.relative_to(tmp_path)) in out, out[-3000:]
    assert "python -m boexplore.pipeline.release" in out, out[-3000:]


def test_workflow_run_stops_before_writing_and_the_ways_out_work(release, tmp_path):
    """A real run on the issue's case writes nothing; ``git checkout`` (here: the committed
    bytes put back) makes it restore, ``release drop`` makes it run BO."""
    good = (release / CHUNK).read_bytes()
    CASES["flip_middle"](release)
    args = [RUN_FILE, "--cores", "1", "--configfile", "rel.yaml"]
    proc = run_snakemake(args, cwd=tmp_path, timeout=300)
    assert proc.returncode != 0 and not (tmp_path / RUN_FILE).exists()
    assert "sha256 expected" in proc.stdout + proc.stderr

    (release / CHUNK).write_bytes(good)  # way out 1: the committed file back
    proc = run_snakemake(["-n", *args], cwd=tmp_path, timeout=300)
    assert proc.returncode == 0 and "restore_run" in proc.stdout + proc.stderr

    from boexplore.pipeline.release import main as release_main

    CASES["flip_middle"](release)
    assert release_main(["drop", str(release / CHUNK)]) == 0  # way out 2: re-make with BO
    proc = run_snakemake(["-n", *args], cwd=tmp_path, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "rule bo_run" in out and "restore_run" not in out, out[-3000:]


def test_a_release_without_manifest_is_used_with_a_warning(made, tmp_path, caplog):
    """An ad-hoc release (no manifest.csv beside it) keeps working, unchecked, and says so."""
    traces = tmp_path / "adhoc"
    (file,) = export_traces(made, traces)
    with caplog.at_level("WARNING", logger="boexplore.pipeline"):
        check_job_release([traces], "b2", "random")
        back = restore_trace(file, tmp_path / "r.parquet")
    assert "no manifest" in caplog.text
    np.testing.assert_array_equal(pd.read_parquet(back)["y"], pd.read_parquet(file)["y"])
    shutil.rmtree(traces)
