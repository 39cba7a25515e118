"""bench.kg_memory: one real measurement per fresh process, and the committed page is generated."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from boexplore.bench import kg_memory

REPO = Path(__file__).resolve().parents[2]
TINY = {"seed": 0, "fantasies": 4, "num_restarts": 2, "raw_samples": 16, "maxiter": 5,
        "problem": "hartmann", "dim": 6, "n": 12, "init_batch": 8}  # fmt: skip


@pytest.mark.parametrize("kind, batch", [("step", 2), ("grad", 3), ("nograd", 3)])
def test_one_measurement_in_a_fresh_process(kind, batch):
    row = kg_memory.run_one({**TINY, "kind": kind, "batch": batch})
    assert row["kind"] == kind and row["acq_cpu_s"] > 0 and row["fit_cpu_s"] > 0
    assert 0 < row["import_mb"] <= row["fit_mb"] <= row["peak_mb"]


def test_grid_measures_every_paper_cell_with_today_settings():
    steps = [s for s in kg_memory.grid() if s["kind"] == "step" and s["batch"] == 1]
    assert {(s["dim"], s["n"]) for s in steps} == {(d, n) for d in (6, 60) for n in (100, 300, 500)}
    assert all(s["fantasies"] == 64 and s["raw_samples"] == 1024 for s in steps)
    assert all(s["init_batch"] == 8 for s in steps)


def test_committed_page_is_generated_from_the_committed_csv():
    rows = pd.read_csv(REPO / "docs" / "kg-memory.csv")
    page = (REPO / "docs" / "kg-memory.md").read_text()
    assert page == kg_memory.render_markdown(rows, REPO / "config" / "paper.yaml")
    assert "ENGINE CONSTANT DIFFERS" not in page
