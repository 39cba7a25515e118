"""Optimiser-effort check: equivalence within seed noise, and a control that must fail."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boexplore.analysis.claimkit.verdict import MISSING, NOT_REPRODUCED, REPRODUCED
from boexplore.analysis.paper1.effort import (
    DIFFERENT,
    EQUIVALENT,
    effort_rows,
    equivalence,
    seeds_needed,
)

CFG = {"primary_metric": "otsd_norm",
       "effort_check": {"problem": "p", "base": "logei", "alt": "logei_effort",
                        "control": "random", "metrics": ["otsd_norm", "performance"],
                        "margin_sd": 1.0}}  # fmt: skip


def _final(shift: float, seeds: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for s in range(seeds):
        base = rng.normal(0.5, 0.05)
        perf = rng.normal(-1.0, 0.2)
        for m, o, p in (("logei", base, perf),
                        ("logei_effort", base + rng.normal(0, 0.005) + shift, perf + rng.normal(0, 0.02)),
                        ("random", base + 0.3, perf - 1.0)):  # fmt: skip
            rows.append({"problem": "p", "method": m, "seed": s, "otsd_norm": o, "performance": p})
    return pd.DataFrame(rows)


def test_same_effort_up_to_noise_is_equivalent_and_the_control_is_not():
    (row,) = effort_rows(_final(0.0), CFG)
    assert row["decision"] == REPRODUCED and row["value"] == 1.0
    assert "control logei vs random (must not be equivalent): otsd_norm: different" in row["note"]


def test_a_shift_of_several_seed_sds_is_different():
    (row,) = effort_rows(_final(0.3), CFG)
    assert row["decision"] == NOT_REPRODUCED
    assert "otsd_norm: different" in row["note"]


def test_missing_method_and_no_check():
    (row,) = effort_rows(_final(0.0).query("method != 'logei_effort'"), CFG)
    assert row["decision"] == MISSING
    assert effort_rows(_final(0.0), {"primary_metric": "otsd_norm"}) == []


@pytest.mark.parametrize("shift, verdict", [(0.0, EQUIVALENT), (5.0, DIFFERENT)])
def test_equivalence_interval_against_the_margin(shift, verdict):
    base = np.linspace(0, 1, 10)
    alt = base + shift + np.tile([0.01, -0.01], 5)
    assert equivalence(base, alt, 1.0)["verdict"] == verdict


def _pilot(mu: float, sd: float, n: int = 8, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.normal(0.0, 1.0, n)
    return base, base + rng.normal(mu, sd, n)


def test_seeds_needed_grows_as_the_effect_nears_the_margin():
    grid = [3, 5, 8, 10, 15, 20, 30, 50, 100]
    clear = seeds_needed({"x": _pilot(0.0, 0.3)}, None, 1.0, grid)
    close = seeds_needed({"x": _pilot(0.4, 0.8)}, None, 1.0, grid)
    assert clear is not None and close is not None and clear < close
    # control: a difference sitting on the margin is never decided on the grid
    base, _ = _pilot(0.0, 0.1)
    on_margin = (base, base + np.std(base, ddof=1) + np.tile([0.3, -0.3], 4))
    assert seeds_needed({}, on_margin, 1.0, [3, 5, 8, 10]) is None


def test_undecided_row_names_its_size_and_the_controls():
    noisy = _final(0.0)
    rng = np.random.default_rng(3)
    mask = noisy["method"] == "logei_effort"
    noisy.loc[mask, "otsd_norm"] += rng.normal(0.0, 0.06, int(mask.sum()))  # ~ the seed SD
    (row,) = effort_rows(noisy, CFG)
    assert row["decision"] not in (REPRODUCED, NOT_REPRODUCED)
    assert row["verdict"].startswith("undecidable at this scale: ")
    assert row["needs"] == "" or row["needs"].endswith(" seeds")
    (decided,) = effort_rows(_final(0.0), CFG)  # control: a decided row names no size
    assert decided["needs"] == "" and "power analysis" not in decided["note"]
