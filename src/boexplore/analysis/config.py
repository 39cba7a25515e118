"""The ``analysis`` config section with its defaults (mirrors analysis.schema.yaml)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from boexplore.analysis.paper_order import DEFAULT_GROUPS, DEFAULT_PAPER_ORDER

DEFAULTS: dict[str, Any] = {
    "seed": 0,
    "n_boot": 1000,
    "primary_metric": "otsd_norm",
    "exploration_metrics": ["otsd_norm", "oe_rel"],
    "low_d_max": 10,
    "high_d_min": 50,
    "min_seeds": 3,
    "min_problems": 3,
    "taxonomy": {
        "alpha": 0.05,
        "correction": "holm",
        "majority": 0.667,
        "test": "t",
        "include_variants": False,
    },
    "groups": DEFAULT_GROUPS,
    "paper_order": DEFAULT_PAPER_ORDER,
    "explorers": ["random", "ucb_high"],
    "exploiters": ["pi", "greedy"],
    "c4_ts_groups": ["ts", "ts_polish"],
    "c5_ucb_groups": ["ucb"],
    "c7_min_active_frac": 0.5,
    "c8_n_boot": 2000,
    "decision": {"alpha": 0.05, "correction": "holm", "support": 0.66, "max_against": 0.0},
    "power": {
        "target": 0.8,
        "seeds_grid": [3, 5, 8, 10, 15, 20, 30, 50],
        "problems_grid": [3, 4, 6, 8, 10, 12, 16, 24],
        "n_sim": 300,
        "seed": 0,
    },
    "oe_baseline": {"n_rep": 16, "seed": 0},
    "tours": {"max_traces": 20, "prefix_sizes": [10, 25, 50, 100], "exact_max": 11, "seed": 0},
    "thresholds": {"c1_rho": 0.5, "c3_tau": 0.5},
}


def _merge(base: dict[str, Any], over: Mapping[str, Any], path: str) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, val in over.items():
        if key not in base:
            raise ValueError(f"unknown key analysis.{path}{key}; known: {sorted(base)}")
        if isinstance(base[key], dict) and key not in ("groups",):
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
