"""Config-driven drivers for the paper-2 experiments E1-E4 (one call = one workflow job).

The ``parametric`` config section, resolved by ``paper2_grid.resolve_config`` (every default
comes from ``boexplore/schema/parametric.schema.yaml``),
names problems under short keys, a set of policy defaults, and per-experiment
settings. These functions turn (config, wildcards) into policies and runs, and
keep the workflow scripts thin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

import pandas as pd

from boexplore.parametric.loop import BoundCheck, run_policy
from boexplore.parametric.policies import PRESETS, PolicySpec
from boexplore.parametric.probe import static_probe
from boexplore.pipeline.paper2_grid import _cell, chunk_seeds, e2_cells, e3_cells

_FIELDS = {f.name for f in fields(PolicySpec)}


def make_problem(cfg: Mapping[str, Any], key: str):
    """Problem instance for the config key ``key`` (``parametric.problems.<key>``)."""
    from boexplore.problems import get_problem

    problems = cfg["problems"]
    if key not in problems:
        raise ValueError(f"parametric: unknown problem key {key!r}; known: {sorted(problems)}")
    p = problems[key]
    return get_problem(
        p["name"], dim=p.get("dim"), instance_seed=p["instance_seed"], **p["options"]
    )


def policy_for(cfg: Mapping[str, Any], method: str, **overrides: Any) -> PolicySpec:
    """Policy = PolicySpec defaults < config ``policy_defaults`` < preset < ``overrides``.

    Without ``lam`` in ``policy_defaults`` lambda is the noise variance ``noise_std**2``.

    Preset-specific architecture (e.g. the official LFBO MLP) therefore wins over the
    shared defaults, and experiment cells (lambda, init scale, width) win over both.
    """
    if method not in PRESETS:
        raise ValueError(f"parametric: unknown method {method!r}; known: {sorted(PRESETS)}")
    defaults = dict(cfg["policy_defaults"])
    # lambda plays the role of the GP noise variance: default lambda = sigma_eps^2.
    if "lam" not in defaults:
        defaults["lam"] = round(float(cfg["noise_std"]) ** 2, 12)
    bad = (set(defaults) | set(overrides)) - _FIELDS
    if bad:
        raise ValueError(
            f"parametric: unknown policy settings {sorted(bad)}; valid: {sorted(_FIELDS)}"
        )
    base = PolicySpec(**{**defaults, **PRESETS[method]})
    return replace(base, **overrides)


# --- job drivers ------------------------------------------------------------------------------
def run_e1(cfg: Mapping[str, Any], problem_key: str, method: str, chunk_id: int) -> pd.DataFrame:
    """E1 regret-curve runs of one method on one problem for one seed chunk."""
    e1 = cfg["e1"]
    problem = make_problem(cfg, problem_key)
    seeds = chunk_seeds(cfg, int(e1["seeds"]), chunk_id)
    overrides = dict(e1["policy_overrides"].get(method, {}))
    trace, _ = run_policy(
        problem,
        policy_for(cfg, method, **overrides),
        seeds,
        int(e1["rounds"]),
        int(cfg["n_init"]),
        float(cfg["noise_std"]),
        method=method,
    )
    trace.insert(1, "problem_key", problem_key)
    return trace


def run_e2(
    cfg: Mapping[str, Any], problem_key: str, reg: str, width: int, chunk_id: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """E2 bound check: all (init scale, lambda) cells at one (regulariser, width); returns (bounds, traces)."""
    e2 = cfg["e2"]
    problem = make_problem(cfg, problem_key)
    seeds = chunk_seeds(cfg, int(e2["seeds"]), chunk_id)
    bounds, traces = [], []
    for cell in e2_cells(cfg):
        if cell["reg"] != reg or cell["width"] != width:
            continue
        method = "rr_ts" if reg == "func" else "rr_ts_anchor"
        pol = policy_for(cfg, method, width=width, init_scale=cell["init_scale"], lam=cell["lam"])
        tr, bd = run_policy(
            problem,
            pol,
            seeds,
            int(e2["rounds"]),
            int(cfg["n_init"]),
            float(cfg["noise_std"]),
            method=method,
            bound_check=BoundCheck(float(e2["delta"])),
        )
        for df in (tr, bd):
            df["cell"], df["reg"], df["width"] = cell["label"], reg, width
            df["init_scale"], df["lam"], df["problem_key"] = (
                cell["init_scale"],
                cell["lam"],
                problem_key,
            )
        bounds.append(bd)
        traces.append(tr)
    if not bounds:
        raise ValueError(f"parametric e2: no cells for reg={reg!r}, width={width}")
    return pd.concat(bounds, ignore_index=True), pd.concat(traces, ignore_index=True)


def run_e3_static(cfg: Mapping[str, Any]) -> pd.DataFrame:
    """E3 static probe over the (lambda, init scale) grid."""
    e3 = cfg["e3"]
    st = e3["static"]
    problem = make_problem(cfg, e3["problem"])
    rows = []
    for lam in st["lams"]:
        for s in st["init_scales"]:
            pol = policy_for(cfg, "rr_ts", lam=float(lam), init_scale=float(s))
            res = static_probe(
                problem,
                pol,
                int(st["n_data"]),
                int(st["n_draws"]),
                float(cfg["noise_std"]),
                int(st["seed"]),
            )
            rows.append(
                {"problem_key": e3["problem"], "lam": float(lam), "init_scale": float(s), **res}
            )
    return pd.DataFrame(rows)


def run_e3_dynamic(cfg: Mapping[str, Any], cell_label: str, chunk_id: int) -> pd.DataFrame:
    """E3 dynamic probe: RR-TS regret runs at one (lambda, init scale) cell."""
    e3 = cfg["e3"]
    dyn = e3["dynamic"]
    cell = _cell(e3_cells(cfg), cell_label)
    problem = make_problem(cfg, e3["problem"])
    seeds = chunk_seeds(cfg, int(dyn["seeds"]), chunk_id)
    pol = policy_for(cfg, "rr_ts", lam=cell["lam"], init_scale=cell["init_scale"])
    tr, _ = run_policy(
        problem,
        pol,
        seeds,
        int(dyn["rounds"]),
        int(cfg["n_init"]),
        float(cfg["noise_std"]),
        method="rr_ts",
    )
    tr["cell"], tr["lam"], tr["init_scale"], tr["problem_key"] = (
        cell_label,
        cell["lam"],
        cell["init_scale"],
        e3["problem"],
    )
    return tr


def run_e4(cfg: Mapping[str, Any], problem_key: str, method: str, chunk_id: int) -> pd.DataFrame:
    """E4 continuous sanity runs (LFBO variants, random, GP-LogEI)."""
    from boexplore.parametric.continuous import run_continuous, run_gp_logei

    e4 = cfg["e4"]
    problems = e4["problems"]
    if problem_key not in problems:
        raise ValueError(
            f"parametric e4: unknown problem key {problem_key!r}; known: {sorted(problems)}"
        )
    p = problems[problem_key]
    from boexplore.problems import get_problem

    problem = get_problem(
        p["name"], dim=p.get("dim"), instance_seed=p["instance_seed"], **p["options"]
    )
    seeds = chunk_seeds(cfg, int(e4["seeds"]), chunk_id)
    budget, n_init = int(e4["budget"]), int(e4["n_init"])
    if method == "gp_logei":
        tr = run_gp_logei(problem, seeds, budget, n_init, method)
    else:
        overrides = dict(e4["policy_overrides"].get(method, {}))
        tr = run_continuous(
            problem,
            policy_for(cfg, method, **overrides),
            seeds,
            budget,
            n_init,
            int(e4["n_candidates"]),
            method,
        )
    tr.insert(1, "problem_key", problem_key)
    return tr
