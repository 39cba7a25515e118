"""Workflow-facing aggregation: paper-2 run files -> tables and the claims table.

The figures drawn from these tables are in :mod:`boexplore.plotting.paper2`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from boexplore.analysis.paper2.claims import DEFAULTS, claims_table, to_markdown
from boexplore.analysis.paper2.stuck import stuck_control
from boexplore.analysis.paper2.summary import (
    e1_curves,
    e1_per_seed,
    e1_summary,
    e2_summary,
    e3_dynamic_per_seed,
    e3_dynamic_summary,
    e4_summary,
)
from boexplore.analysis.paper2.views import leave_one_problem_out, with_views
from boexplore.io import atomic_write, atomic_write_text


def _concat(files: Any) -> pd.DataFrame:
    files = [files] if isinstance(files, str) else list(files or [])
    return (
        pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
        if files
        else pd.DataFrame()
    )


def build_tables(
    cfg: Mapping[str, Any], inputs: Mapping[str, Any], outputs: Mapping[str, str]
) -> pd.DataFrame:
    """Write every paper-2 table named in ``outputs`` (empty tables for disabled experiments).

    ``cfg`` is the resolved ``parametric`` section (``paper2_grid.resolve_config``).
    """
    th = cfg["claims"]
    level, n_boot = float(th["level"]), int(th["n_boot"])
    e1 = _concat(inputs.get("e1"))
    seeds = summ = curves = pd.DataFrame()
    if len(e1):
        seeds = e1_per_seed(
            e1,
            float(cfg["e1"]["slope_from"]),
            int(cfg["e1"]["late_window"]),
            float(th["stuck_gap_min"]),
        )
        summ = e1_summary(
            seeds,
            level,
            n_boot,
            float(th["stuck_late_frac"]),
            float(th["gap_max"]),
        )
        curves = e1_curves(e1)
    atomic_write(seeds, outputs["e1_seeds"])
    atomic_write(summ, outputs["e1_summary"])
    atomic_write(curves, outputs["e1_curves"])
    bounds = _concat(inputs.get("e2"))
    e2 = e2_summary(bounds) if len(bounds) else pd.DataFrame()
    atomic_write(bounds, outputs["e2_bounds"])
    atomic_write(e2, outputs["e2_summary"])
    atomic_write_text(to_markdown(e2) if len(e2) else "(E2 disabled)\n", outputs["e2_md"])
    static = _concat(inputs.get("e3_static"))
    dyn_tr = _concat(inputs.get("e3_dynamic"))
    late = int(cfg["e1"]["late_window"])
    dyn = e3_dynamic_summary(dyn_tr, late) if len(dyn_tr) else pd.DataFrame()
    dyn_seeds = e3_dynamic_per_seed(dyn_tr, late) if len(dyn_tr) else None
    atomic_write(static, outputs["e3_static"])
    atomic_write(dyn, outputs["e3_dynamic"])
    e4_tr = _concat(inputs.get("e4"))
    atomic_write(e4_tr, outputs["e4_traces"])
    atomic_write(e4_summary(e4_tr) if len(e4_tr) else pd.DataFrame(), outputs["e4_summary"])
    problems = cfg["problems"]
    keys = list(th.get("problems") or cfg["e1"]["problems"])  # P2-C1 ... P2-C3 problems
    misspecified = [k for k in keys if problems.get(k, {}).get("name") != "nn_realizable"]
    claims = claims_table(
        th,
        seeds,
        keys,
        e2,
        bounds if len(bounds) else None,
        float(cfg["e2"]["delta"]),
        static if len(static) else None,
        dyn if len(dyn) else None,
        dyn_seeds,
        misspecified,
    )
    if len(seeds) and len(keys) > 1:  # one problem left out: paper 1's lopo columns

        def on(some: list[str]) -> pd.DataFrame:
            return claims_table(th, seeds, some, None, None, float(cfg["e2"]["delta"]),
                                None, None, None, misspecified)  # fmt: skip

        claims = with_views(claims, leave_one_problem_out(claims, keys, on))
    if "stuck_control" in outputs:  # the stuck rule's control rates (P2-C3), per problem
        rates = (
            stuck_control(seeds, keys, {**DEFAULTS, **th}, [th["policy"], *th["ablations"]]).rates
            if len(seeds)
            else pd.DataFrame()
        )
        atomic_write(rates, outputs["stuck_control"])
    atomic_write(claims, outputs["claims"])
    atomic_write_text(
        "# Paper 2 claims (reconstructed statements; see README)\n\n" + to_markdown(claims),
        outputs["claims_md"],
    )
    return claims
