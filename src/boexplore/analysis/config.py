"""The ``analysis`` config section with its defaults (taken from analysis.schema.yaml)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from boexplore.schema import schema_defaults

# The defaults are read from the schema (src/boexplore/schema/analysis.schema.yaml), the one
# place they are written down; the thresholds there are fixed before results are seen.
DEFAULTS: dict[str, Any] = schema_defaults("analysis")
# Mappings whose keys are the user's labels: replaced as a whole, never merged key by key.
FREE_MAPS = frozenset({"groups", "ucb_beta", "ts_maximiser", "oe_statistic", "gp_prior"})


def _merge(base: dict[str, Any], over: Mapping[str, Any], path: str) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, val in over.items():
        if key not in base:
            raise ValueError(f"unknown key analysis.{path}{key}; known: {sorted(base)}")
        if isinstance(base[key], dict) and key not in FREE_MAPS:
            if not isinstance(val, Mapping):
                raise ValueError(f"analysis.{path}{key} must be a mapping, got {val!r}")
            out[key] = _merge(base[key], val, f"{path}{key}.")
        else:
            out[key] = copy.deepcopy(val)
    return out


def analysis_config(section: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with the user's ``analysis`` section (unknown keys raise)."""
    cfg = _merge(DEFAULTS, section or {}, "")
    if cfg["primary_metric"] not in cfg["exploration_metrics"]:
        raise ValueError("analysis.primary_metric must be one of analysis.exploration_metrics")
    if cfg["low_d_max"] >= cfg["high_d_min"]:
        raise ValueError("analysis.low_d_max must be below analysis.high_d_min")
    return cfg
