"""Where P1-C7's mechanisms acted, from a config's released traces (issue 58)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from boexplore.pipeline.activity_stage import main, released_activity_table
from boexplore.workflow_config import validate_config

BUDGET = 6


def _trace(path: Path, method: str, lengths: dict[int, list[float]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        {"problem": "p", "method": method, "seed": s, "dim": 2, "tr_length": v,
         "raasp_n_perturbed": np.nan, "y": 0.0}
        for s, vals in lengths.items()
        for v in vals
    ]  # fmt: skip
    pd.DataFrame(rows).astype({"tr_length": np.float32}).to_parquet(path)


def _config(root: Path) -> dict:
    return validate_config(
        {
            "run_name": "act",
            "problems": {"p": {"name": "branin", "dim": 2}},
            "methods": {"t": "logei+tr", "r": "random"},
            "seeds": [0, 1],
            "seeds_per_job": 2,
            "budget": BUDGET,
            "n_init": 3,
            "parametric": {"enabled": False},
            "release": {"traces": str(root)},
        }
    )


def test_counts_the_seeds_whose_trust_region_changed_size(tmp_path):
    root = tmp_path / "rel" / "traces"
    changed, fixed = [0.8] * 3 + [0.4] * 3, [0.8] * BUDGET
    _trace(root / "p" / "t" / "seeds0-1.parquet", "t", {0: changed, 1: fixed})
    _trace(root / "p" / "r" / "seeds0-1.parquet", "r", {0: [np.nan] * BUDGET, 1: [np.nan] * 6})
    table, missing = released_activity_table(_config(root))
    assert missing == []
    assert table[
        ["mechanism", "problem", "dim", "method", "n_seeds", "n_acted"]
    ].values.tolist() == [["trust_region", "p", 2, "t", 2, 1]]
    assert bool(table["kept_by_filter"].iloc[0])  # 1 of 2 seeds: at the default 0.5


def test_a_job_the_release_does_not_hold_refuses_the_table(tmp_path, capsys):
    root = tmp_path / "rel" / "traces"
    _trace(root / "p" / "t" / "seeds0-1.parquet", "t", {0: [0.8] * 3, 1: [0.8] * 3})  # short
    config = tmp_path / "act.yaml"
    config.write_text(
        "run_name: act\nproblems: {p: {name: branin, dim: 2}}\nmethods: {t: logei+tr}\n"
        f"seeds: [0, 1]\nseeds_per_job: 2\nbudget: {BUDGET}\nn_init: 3\n"
        f"parametric: {{enabled: false}}\nrelease: {{traces: {root}}}\n"
    )
    out = tmp_path / "a.csv"
    assert main(["--configfile", str(config), "--out", str(out)]) == 1
    assert "not held at their budget by the release (e.g. p/t/seeds0-1)" in capsys.readouterr().err
    assert not out.exists()
    config.write_text(
        config.read_text().replace(f"budget: {BUDGET}\nn_init: 3", "budget: 3\nn_init: 1")
    )
    assert main(["--configfile", str(config), "--out", str(out)]) == 0
    assert pd.read_csv(out)["n_acted"].tolist() == [0]  # a length that never changed
