"""boexplore verify: float32-exact comparison with a release, sampling, overlay, claims diff."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boexplore.pipeline import verify
from boexplore.pipeline.release import compact, trace_manifest


def _trace(n: int = 20, d: int = 2, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    data = {f"x_{j}": rng.random(n) for j in range(d)}
    data["y"] = rng.normal(size=n)
    data["iteration"] = np.r_[np.zeros(5, int), np.arange(1, n - 4)]
    data["seed"] = np.full(n, seed)
    return pd.DataFrame(data)


def test_identical_up_to_float32_rounding_counts_as_reproduced():
    new = _trace()
    old = compact(new)
    tiny = new.copy()
    tiny.loc[7, "x_0"] += 1e-12  # below float32 resolution: the same stored value
    out = verify.compare_trace(tiny, old)
    assert out["first_divergent_eval"] is None and out["first_divergent_iteration"] is None


def test_a_change_beyond_float32_is_found_at_its_first_evaluation():
    new = _trace()
    old = compact(new)
    moved = new.copy()
    moved.loc[12, "x_1"] += 1e-5
    moved.loc[15, "y"] += 1.0
    out = verify.compare_trace(moved, old)
    assert out["first_divergent_eval"] == 12
    assert out["first_divergent_iteration"] == int(new["iteration"].iloc[12])
    assert out["max_abs_dy"] == pytest.approx(1.0, rel=1e-6)


def test_a_shorter_rerun_diverges_where_it_ends():
    new = _trace()
    out = verify.compare_trace(new.iloc[:10], compact(new))
    assert out["first_divergent_eval"] == 10


def _jobs(problems=3, methods=2, chunks=2) -> list[verify.ReleaseJob]:
    return [
        verify.ReleaseJob(f"p{i}", f"m{j}", f"seeds{k}", Path(f"p{i}/m{j}/seeds{k}.parquet"))
        for i in range(problems)
        for j in range(methods)
        for k in range(chunks)
    ]


def test_sample_covers_every_cell_before_repeating_and_is_seeded():
    jobs = _jobs()
    picked = verify.sample_jobs(jobs, 6, seed=1)
    assert len({(j.problem, j.method) for j in picked}) == 6
    assert picked == verify.sample_jobs(jobs, 6, seed=1)
    assert picked != verify.sample_jobs(jobs, 6, seed=2)
    assert verify.sample_jobs(jobs, 100) == jobs


def test_overlay_swaps_in_reruns_and_links_the_rest(tmp_path):
    release, reruns, out = tmp_path / "release", tmp_path / "reruns", tmp_path / "overlay"
    for rel in ("a/m/seed0.parquet", "a/m/seed1.parquet"):
        (release / rel).parent.mkdir(parents=True, exist_ok=True)
        (release / rel).write_text("old")
    (reruns / "a/m").mkdir(parents=True)
    (reruns / "a/m/seed1.parquet").write_text("new")
    assert verify.overlay_release(release, reruns, out) == 1
    assert (out / "a/m/seed0.parquet").read_text() == "old"
    assert (out / "a/m/seed1.parquet").read_text() == "new"


def test_claims_comparison_flags_a_changed_verdict():
    committed = pd.DataFrame(
        {
            "claim_id": ["P1-C1", "P1-C2"],
            "variant": [None, None],
            "verdict": ["reproduced", "undecidable"],
            "value": [0.7, 0.5],
            "ci_low": [0.6, 0.4],
            "ci_high": [0.8, 0.6],
        }
    )
    rebuilt = committed.copy()
    assert verify.compare_claims(committed, rebuilt)["verdict_agrees"].all()
    rebuilt.loc[1, "verdict"] = "reproduced"
    diff = verify.compare_claims(committed, rebuilt)
    assert diff["verdict_agrees"].tolist() == [True, False]


def test_manifest_reads_the_stamped_identity_and_the_verify_table(tmp_path):
    from boexplore.numerics import stamp_trace

    traces = tmp_path / "traces"
    (traces / "p/m").mkdir(parents=True)
    stamp_trace(_trace(seed=0)).to_parquet(traces / "p/m/seed0.parquet")
    _trace(seed=1).to_parquet(traces / "p/m/seed1.parquet")  # made before stamping existed
    checked = pd.DataFrame(
        {"problem": ["p"], "method": ["m"], "chunk": ["seed1"], "first_divergent_iteration": [3]}
    )
    man = trace_manifest(traces, checked).set_index("chunk")
    assert man.loc["seed0", "profile"] != "unrecorded"
    assert man.loc["seed1", "profile"] == "unrecorded"
    assert man.loc["seed1", "reproduced"] == "diverges at iteration 3"
    assert man.loc["seed0", "reproduced"] == "not checked"
    # a later manifest keeps the earlier outcome only while the file is unchanged
    again = trace_manifest(traces, None, man.reset_index()).set_index("chunk")
    assert again.loc["seed1", "reproduced"] == "diverges at iteration 3"
    _trace(seed=1).assign(y=lambda t: t["y"] + 1.0).to_parquet(traces / "p/m/seed1.parquet")
    changed = trace_manifest(traces, None, man.reset_index()).set_index("chunk")
    assert changed.loc["seed1", "reproduced"] == "not checked"


def test_released_prefix_is_the_recorded_file_and_nothing_else(tmp_path, monkeypatch):
    """verify re-runs an extended trace from the prefix its identity records (read as the
    workflow reads it); a prefix file that is missing or not the recorded one is refused."""
    from boexplore.io import atomic_write, sha256_file
    from boexplore.pipeline.release import expand

    monkeypatch.chdir(tmp_path)
    prefix = Path("released/p/m/seed0.parquet")
    prefix.parent.mkdir(parents=True)
    atomic_write(compact(_trace(n=12)), prefix)
    committed = _trace(n=20)
    assert verify.released_prefix(committed) is None  # run from its first evaluation
    committed.attrs["boexplore"] = {
        "extended_from": {"files": {str(prefix): sha256_file(prefix)}, "rows": 12}
    }
    got = verify.released_prefix(committed)
    pd.testing.assert_frame_equal(got, expand(pd.read_parquet(prefix)))
    committed.attrs["boexplore"]["extended_from"]["files"] = {str(prefix): "0" * 64}
    with pytest.raises(ValueError, match="sha256"):
        verify.released_prefix(committed)
    committed.attrs["boexplore"]["extended_from"]["files"] = {"released/p/m/gone.parquet": "x"}
    with pytest.raises(FileNotFoundError, match="gone"):
        verify.released_prefix(committed)


def test_a_rerun_trace_carries_its_identity_and_the_committed_prefix() -> None:
    """Without it a re-run seed could not be merged with the released seeds of its job."""
    import pandas as pd

    from boexplore.pipeline.verify import stamp_rerun

    committed = pd.DataFrame({"seed": [0]})
    committed.attrs = {"boexplore": {"extended_from": {"files": {"a.parquet": "0" * 64}}}}
    rerun = stamp_rerun(pd.DataFrame({"seed": [0]}), committed)
    ident = rerun.attrs["boexplore"]
    assert ident["extended_from"] == committed.attrs["boexplore"]["extended_from"]
    assert ident["engine"]["engine_version"] >= 1 and "cpu" in ident["numerics"]
