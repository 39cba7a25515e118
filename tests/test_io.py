"""boexplore.io: atomic writes by suffix and provenance sidecars."""

from __future__ import annotations

import json
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from boexplore import io as bio  # noqa: E402


def _leftovers(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def test_round_trip_by_suffix(tmp_path) -> None:
    df = pd.DataFrame({"a": [1, 2], "b": [0.5, np.nan]})
    bio.atomic_write(df, tmp_path / "t.parquet")
    bio.atomic_write(df, tmp_path / "sub" / "t.csv")  # creates the directory
    bio.atomic_write({"k": [1, 2], "p": tmp_path}, tmp_path / "r.json")
    bio.atomic_write("hello\n", tmp_path / "n.md")
    bio.atomic_write(b"\x00\x01", tmp_path / "b.bin")
    bio.atomic_write(np.arange(3.0), tmp_path / "a.npy")
    bio.atomic_write({"X": np.eye(2)}, tmp_path / "d.npz")
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    bio.atomic_write(fig, tmp_path / "f.png", dpi=50)
    bio.atomic_write(fig, tmp_path / "f.pdf")
    plt.close(fig)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t.parquet"), df)
    assert (tmp_path / "sub" / "t.csv").read_text() == df.to_csv(index=False)
    assert json.loads((tmp_path / "r.json").read_text()) == {"k": [1, 2], "p": str(tmp_path)}
    assert (tmp_path / "n.md").read_text() == "hello\n"
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), np.arange(3.0))
    np.testing.assert_array_equal(np.load(tmp_path / "d.npz")["X"], np.eye(2))
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "f.pdf").read_bytes()[:5] == b"%PDF-"
    assert _leftovers(tmp_path) == []


def test_failed_write_keeps_old_file_and_no_temp(tmp_path) -> None:
    target = tmp_path / "t.csv"
    target.write_text("old\n")

    class Broken(pd.DataFrame):
        def to_csv(self, *a, **k):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        bio.atomic_write(Broken({"a": [1]}), target)
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path) == []


def test_wrong_object_for_suffix_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="Figure"):
        bio.atomic_write({"a": 1}, tmp_path / "x.png")
    with pytest.raises(ValueError, match="DataFrame"):
        bio.atomic_write([1, 2], tmp_path / "x.parquet")
    with pytest.raises(ValueError, match="suffix-less"):
        bio.atomic_write([1, 2], tmp_path / "noext")
    with pytest.raises(TypeError):
        bio.atomic_write_text(b"x", tmp_path / "x.txt")
    assert list(tmp_path.iterdir()) == []


def test_run_manifest_from_inputs() -> None:
    assert str(bio.run_manifest(["results/default/tables/metrics.parquet"])) == (
        "results/default/tables/provenance.json"
    )
    assert str(bio.run_manifest(["/x/results/smoke/parametric/e1.parquet"])) == (
        "/x/results/smoke/tables/provenance.json"
    )
    assert bio.run_manifest(["figures/default/a.csv", "data.csv"]) is None


def test_sidecar_records_git_commit_and_manifest(tmp_path, monkeypatch) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    tables = tmp_path / "results" / "demo" / "tables"
    table = bio.atomic_write(pd.DataFrame({"a": [1]}), tables / "metrics.parquet")
    manifest = bio.atomic_write({"runs": []}, tables / "provenance.json")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "commit", "-qm", "x"], cwd=tmp_path, env=env,
        check=True,
    )  # fmt: skip
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BOEXPLORE_GIT_COMMIT", raising=False)
    bio.git_state.cache_clear()
    try:
        side = bio.write_sidecar(
            "figures/demo/f.png", ["results/demo/tables/metrics.parquet"], {"budget": 3}
        )
    finally:
        bio.git_state.cache_clear()
    record = json.loads(side.read_text())
    assert record["git"] == {"commit": head, "dirty": False}
    assert record["provenance"] == {
        "path": "results/demo/tables/provenance.json",
        "sha256": bio.sha256_file(manifest),
    }
    assert record["inputs"] == [
        {"path": "results/demo/tables/metrics.parquet", "sha256": bio.sha256_file(table)}
    ]
    assert record["config"] == {"budget": 3} and record["packages"]["numpy"] == np.__version__


def test_sidecar_without_repo_or_manifest(tmp_path, monkeypatch) -> None:
    (tmp_path / "in.csv").write_text("a\n1\n")
    monkeypatch.setenv("BOEXPLORE_GIT_COMMIT", "abc123")
    bio.git_state.cache_clear()
    try:
        side = bio.write_sidecar(tmp_path / "f.png", [tmp_path / "in.csv"])
    finally:
        bio.git_state.cache_clear()
    record = json.loads(side.read_text())
    assert record["git"]["commit"] == "abc123" and record["provenance"] is None


def test_checkpoint_round_trip_is_atomic_and_keeps_the_previous(tmp_path) -> None:
    """Checkpoints (npz + JSON meta, fsync'd, renamed into place) leave no temp file."""
    import numpy as np

    from boexplore.bo.checkpoint import read_checkpoint, save_checkpoint

    path = tmp_path / "run.parquet.ckpt"
    save_checkpoint(path, {"X": np.array([[0.1, 0.2]])}, {"iteration": 3})
    got = read_checkpoint(path)
    assert got.meta["iteration"] == 3 and got.arrays["X"].tolist() == [[0.1, 0.2]]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.parquet.ckpt"]
    save_checkpoint(path, {"X": np.zeros((0, 2))}, {"iteration": 4})  # replaced whole
    assert read_checkpoint(path).meta["iteration"] == 4
    assert read_checkpoint(tmp_path / "run.parquet.ckpt.prev").meta["iteration"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "run.parquet.ckpt",
        "run.parquet.ckpt.prev",
    ]
