"""Calibration coefficients of the cost model, the cost classes of the methods and ``JobCost``.

Coefficients live in ``calibration.json`` next to this module (``boexplore estimate
--calibrate`` makes new ones from a finished run)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boexplore.bo.methods import methods_of_class

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")
# Cost classes come from the one method registry (boexplore.bo.methods.METHODS).
EXPENSIVE_METHODS = methods_of_class("expensive")  # acquisition dominates: one seed per job
MODEL_FREE = methods_of_class("free")
# Settings the acquisition timings in the calibration data were measured with.
REF_RESTARTS, REF_RAW = 10, 512


@dataclass(frozen=True)
class JobCost:
    """Predicted cost of one workflow job."""

    rule: str
    key: str  # the job's wildcards joined with "/", unique within a rule
    cpu_s: float  # CPU seconds on one core (all jobs are single-threaded)
    mem_mb: float  # predicted peak resident memory

    @property
    def stage(self) -> str:
        """Stage name used in the estimate table (rule, or the paper-2 family)."""
        return self.rule


def load_calibration(path: str | Path | None = None) -> dict[str, Any]:
    """Coefficients of the model (the shipped file unless ``path`` is given); a fresh copy."""
    return json.loads(_read_text(str(path or CALIBRATION_FILE)))


def config_calibration(config: Mapping[str, Any]) -> dict[str, Any]:
    """The calibration a config names (``resources.calibration``), else the shipped one."""
    return load_calibration((config.get("resources", {}) or {}).get("calibration"))


@functools.lru_cache(maxsize=8)
def _read_text(path: str) -> str:
    return Path(path).read_text()
