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


def _kept_copy(rows: pd.DataFrame, speed_up: float) -> pd.DataFrame:
    """The committed steps again, as if measured with bo.kg_fantasy_cache and faster."""
    steps = rows[(rows["kind"] == "step") & (rows["batch"] == 1)].copy()
    return steps.assign(fantasy_cache=1, acq_cpu_s=steps["acq_cpu_s"] / speed_up)


def test_kept_rows_leave_the_plain_model_and_page_alone_and_get_their_own_section():
    rows = kg_memory.read_rows(REPO / "docs" / "kg-memory.csv")
    both = pd.concat([rows, _kept_copy(rows, 10.0)], ignore_index=True)
    plain, kept = kg_memory.split_paths(both)
    assert len(plain) == len(rows) and (kept["fantasy_cache"] == 1).all()
    page = kg_memory.render_markdown(both, REPO / "config" / "paper.yaml")
    base = kg_memory.render_markdown(rows, REPO / "config" / "paper.yaml")
    assert page.startswith(base.rstrip("\n")) and "## With `bo.kg_fantasy_cache`" in page
    assert "| 10.0× |" in page
    assert kg_memory.cpu_calibration(both) == kg_memory.cpu_calibration(rows)


def _kept_cal(tmp_path, rows: pd.DataFrame, speed_up: float) -> dict:
    import json

    fit = kg_memory.cpu_calibration_kept(pd.concat([rows, _kept_copy(rows, speed_up)]))
    cal_path = tmp_path / f"cal{speed_up}.json"
    cal_path.write_text((REPO / "src/boexplore/cost/calibration.json").read_text())
    kg_memory.write_kept_calibration(fit, cal_path)
    return json.loads(cal_path.read_text())


def test_kept_calibration_fits_the_kept_steps_and_the_cost_model_reads_it(tmp_path):
    import json

    from boexplore.bo.methods import parse_method
    from boexplore.cost.cpu import acq_key, bo_iteration_seconds

    rows = kg_memory.read_rows(REPO / "docs" / "kg-memory.csv")
    same, faster = _kept_cal(tmp_path, rows, 1.0), _kept_cal(tmp_path, rows, 10.0)
    kg = parse_method("kg(fantasies=64)")
    on, off = {"extra": {"kg_fantasy_cache": True}}, {}
    assert acq_key(kg, on, faster["bo"]) == "kg_cache" and acq_key(kg, off, faster["bo"]) == "kg"
    assert acq_key(parse_method("logei"), on, faster["bo"]) == "logei"
    for n, d in ((100, 6), (300, 60), (500, 6)):
        fast = bo_iteration_seconds(kg, n, d, on, faster)[1]
        assert fast == pytest.approx(bo_iteration_seconds(kg, n, d, on, same)[1] / 10.0, rel=0.02)
    # the plain path keeps its terms, and an uncalibrated flag changes nothing
    assert bo_iteration_seconds(kg, 300, 6, off, faster) == bo_iteration_seconds(
        kg, 300, 6, off, same
    )
    plain = json.loads((REPO / "src/boexplore/cost/calibration.json").read_text())
    assert acq_key(kg, on, plain["bo"]) == "kg_cache"  # the committed calibration has it
    del plain["bo"]["acq_scale"]["kg_cache"]
    assert acq_key(kg, on, plain["bo"]) == "kg"
