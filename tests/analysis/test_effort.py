"""Optimiser-effort check: equivalence within seed noise, and a control that must fail."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boexplore.analysis.claimkit.verdict import MISSING, NOT_REPRODUCED, REPRODUCED
from boexplore.analysis.paper1.effort import DIFFERENT, EQUIVALENT, effort_rows, equivalence

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
