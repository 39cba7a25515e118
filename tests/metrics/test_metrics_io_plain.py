"""The pandas-free csv path of the metrics CLI agrees with pandas (base install has no pandas)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from boexplore.metrics.io import _read_csv_plain, load_points, write_csv
from boexplore.metrics.scoring import metrics_table


def test_write_csv_matches_pandas() -> None:
    X = np.random.default_rng(0).random((12, 3))
    table = metrics_table(X)  # has NaN (OE before N >= d) and an integer column
    buf = io.StringIO()
    write_csv(table, buf)
    assert buf.getvalue() == pd.DataFrame(table).to_csv(index=False)


def test_plain_csv_reader_matches_pandas(tmp_path, monkeypatch) -> None:
    frame = pd.DataFrame(
        {"label": ["a", "b", "c"], "x_1": [0.5, 0.25, 1.0], "x_0": [0.1, np.nan, 0.3]}
    )
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    plain = _read_csv_plain(path)
    assert plain["label"] is None  # non-numeric
    np.testing.assert_array_equal(plain["x_0"], frame["x_0"].to_numpy())
    with_pandas = load_points(path)
    monkeypatch.setattr("boexplore.metrics.io._read_table", lambda p: _read_csv_plain(p))
    np.testing.assert_array_equal(load_points(path), with_pandas)
    with pytest.raises(ValueError, match="not numeric"):
        load_points(path, ["label"])
    (tmp_path / "ragged.csv").write_text("x_0,x_1\n0.1\n")
    with pytest.raises(ValueError, match="every row"):
        _read_csv_plain(tmp_path / "ragged.csv")
