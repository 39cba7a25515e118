"""The cost model of the jobs beyond the box, and the tier's CPU ceiling."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from wfhelpers import REPO

from boexplore.cost import discrete
from boexplore.pipeline.job_costs import combinatorial_job_costs, workflow_job_costs
from boexplore.workflow_config import validate_config

#: The tier's ceiling (issue 55): at most 6 CPU-h of BO by the cost model.
CEILING_CPU_H = 6.0


def _rows_of(problem: str, dim: int, method: str) -> tuple[np.ndarray, np.ndarray]:
    return discrete._rows()[(problem, dim, method)]


def test_steps_interpolate_the_measured_rows():
    ns, cpu = _rows_of("labs", 40, "logei")
    np.testing.assert_allclose(discrete.step_seconds("labs", 40, "logei", ns), cpu)
    mid = discrete.step_seconds("labs", 40, "ucb(beta=2)", np.array([(ns[0] + ns[1]) / 2]))[0]
    assert mid == pytest.approx((cpu[0] + cpu[1]) / 2)
    ts_ns, ts_cpu = _rows_of("labs", 40, "ts")
    np.testing.assert_allclose(discrete.step_seconds("labs", 40, "ts", ts_ns), ts_cpu)


def test_unmeasured_problems_take_the_worst_rows():
    worst = max(discrete._rows()[k][1].max() for k in discrete._rows() if k[2] == "logei")
    n = np.array([1000.0])
    assert discrete.step_seconds("labs", 33, "logei", n)[0] == pytest.approx(worst)


def test_run_costs():
    assert discrete.run_seconds("labs", 40, "random", 100, 10) == discrete.MODEL_FREE_RUN_S
    short = discrete.run_seconds("labs", 40, "logei", 30, 10)
    long = discrete.run_seconds("labs", 40, "logei", 60, 10)
    assert discrete.GP_RUN_OVERHEAD_S < short < long


def test_tier_is_within_its_ceiling():
    config = validate_config(yaml.safe_load((REPO / "config" / "combinatorial.yaml").read_text()))
    comb = combinatorial_job_costs(config)
    assert {j.rule for j in comb} == {"comb_run", "comb_score"}
    assert len(comb) == 2 * 5 * 9 * config["combinatorial"]["seeds"]
    bo_h = sum(j.cpu_s for j in comb if j.rule == "comb_run") / 3600
    assert 0 < bo_h <= CEILING_CPU_H
    assert set(comb) <= set(workflow_job_costs(config))  # what `boexplore estimate` sums
