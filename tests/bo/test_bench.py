"""bench.timing: a tiny grid produces a CSV row per cell and a Markdown table."""

from __future__ import annotations

import pandas as pd

from boexplore.bench.timing import main


def test_tiny_grid(tmp_path):
    csv, md = tmp_path / "b.csv", tmp_path / "b.md"
    rc = main(["--dims", "2", "--n", "6", "--iters", "1", "--methods", "random", "logei",
               "--num-restarts", "2", "--raw-samples", "16", "--csv", str(csv), "--out", str(md)])  # fmt: skip
    assert rc == 0
    df = pd.read_csv(csv)
    assert df["method"].tolist() == ["random", "logei"]
    assert (df["iters"] == 1).all() and df.loc[1, "fit_s"] > 0
    text = md.read_text()
    assert "| logei |" in text and "n=6 d=2" in text
