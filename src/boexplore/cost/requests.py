"""SLURM requests of a job from its predicted cost: wall time, memory, submissions."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from boexplore.cost.calibration import JobCost


def resources(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """The config's ``resources`` section (empty when unset)."""
    return config.get("resources", {}) or {}


def max_runtime_min(config: Mapping[str, Any]) -> int:
    """The partition's wall-time limit every request is capped at (minutes)."""
    return int(resources(config).get("max_runtime_min", 1440))


def runtime_request_min(cost: JobCost, config: Mapping[str, Any], attempt: int = 1) -> int:
    """Wall-time request: (2x the prediction x runtime_factor + 5 min) x attempt, capped at the
    partition limit.

    A BO job longer than the cap is killed at the limit and resumed from its checkpoint by
    the retry; ``segments_needed`` says how many submissions that takes.
    """
    factor = float(resources(config).get("runtime_factor", 1.0))
    want = (2.0 * cost.cpu_s / 60.0 * factor + 5.0) * attempt
    return int(min(max_runtime_min(config), max(10, math.ceil(want))))


def mem_request_mb(cost: JobCost, config: Mapping[str, Any], attempt: int = 1) -> int:
    """Memory request: 1.5x the predicted peak (min 1 GB), +50 % per retry."""
    factor = float(resources(config).get("mem_factor", 1.0))
    want = max(1000.0, 1.5 * cost.mem_mb) * factor * (1.0 + 0.5 * (attempt - 1))
    return int(math.ceil(want / 100.0) * 100)


def segments_needed(cost: JobCost, config: Mapping[str, Any]) -> int:
    """Submissions a job needs when each may last at most the partition limit."""
    factor = float(resources(config).get("runtime_factor", 1.0))
    return max(1, math.ceil(2.0 * cost.cpu_s * factor / 60.0 / max_runtime_min(config)))
