"""Seed-paired contrasts from trace files (boexplore.analysis.contrasts)."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import pytest

from boexplore.analysis.contrasts import main, paired_contrasts


def _trace(method: str, seed: int, spread: float, n: int = 24, d: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng([seed, int(spread * 1000), zlib.crc32(method.encode())])
    X = 0.5 + spread * (rng.random((n, d)) - 0.5)
    data = {f"x_{j}": X[:, j] for j in range(d)}
    return pd.DataFrame(
        {
            **data,
            "y": rng.normal(size=n),
            "eval_index": np.arange(n),
            "iteration": np.r_[np.zeros(4, int), np.arange(1, n - 3)],
            "problem": "p",
            "dim": d,
            "method": method,
            "seed": seed,
        }
    )


@pytest.fixture
def release(tmp_path):
    """Per-seed files for `wide` and `twin` (uniform), four-seed file for `narrow`."""
    for method, spread in (("wide", 1.0), ("twin", 1.0)):
        for s in range(6):
            path = tmp_path / "p" / method / f"seed{s}.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            _trace(method, s, spread).to_parquet(path)
    (tmp_path / "p" / "narrow").mkdir()
    pd.concat([_trace("narrow", s, 0.1) for s in range(4)]).to_parquet(
        tmp_path / "p" / "narrow" / "seeds0-3.parquet"
    )
    return tmp_path


def test_a_designed_gap_is_found_on_the_common_seeds(release):
    t = paired_contrasts(release, [("wide", "narrow")], at=(0.5, 1.0))
    assert t["evaluations"].tolist() == [12, 24]
    assert (t["seeds"] == 4).all() and (t["n_positive"] == 4).all()  # seeds 0-3 only
    assert (t["ci_low"] > 0).all()


def test_control_two_uniform_methods_show_no_gap(release):
    t = paired_contrasts(release, [("wide", "twin")], at=(24,))
    row = t.iloc[0]
    assert row["seeds"] == 6 and row["ci_low"] < 0 < row["ci_high"]


def test_missing_method_is_left_out_and_bad_pairs_are_refused(release, capsys):
    assert paired_contrasts(release, [("wide", "absent")]).empty
    with pytest.raises(SystemExit):
        main([str(release), "--pairs", "wide-narrow"])
    assert main([str(release), "--pairs", "wide:narrow", "--at", "1.0"]) == 0
    assert "wide - narrow" in capsys.readouterr().out


def test_problem_patterns_select_problems(release):
    (release / "q").mkdir()
    for method in ("wide", "narrow"):
        (release / "q" / method).symlink_to(release / "p" / method)
    both = paired_contrasts(release, [("wide", "narrow")], at=(1.0,))
    assert sorted(both["problem"]) == ["p", "q"]
    only_q = paired_contrasts(release, [("wide", "narrow")], at=(1.0,), problems=["q*"])
    assert only_q["problem"].tolist() == ["q"]
    assert paired_contrasts(release, [("wide", "narrow")], problems=["lo_*"]).empty


def test_a_cell_with_too_few_common_seeds_is_left_out(release):
    # `narrow` has seeds 0-3 in common with `wide`
    assert paired_contrasts(release, [("wide", "narrow")], at=(1.0,), min_seeds=5).empty
    assert len(paired_contrasts(release, [("wide", "narrow")], at=(1.0,), min_seeds=4)) == 1
