"""The released paper-1 claims tables: the verdicts plus what each one depends on.

Joins the claims table of :mod:`boexplore.analysis.paper1.claims` (columns unchanged,
readers rely on them) with, per claim row, the robustness columns of
:mod:`boexplore.analysis.paper1.robustness` (budget, rank test, stability, one problem
out) and the settings range of :mod:`boexplore.analysis.paper1.sensitivity`; the long
budget-curve and sensitivity tables are written next to it.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from boexplore.analysis.claimkit.markdown import markdown_table
from boexplore.analysis.paper1.claims import ClaimsReport, claims_markdown, claims_report
from boexplore.analysis.paper1.robustness import KEY, robustness
from boexplore.analysis.paper1.sensitivity import (
    sensitivity_table,
    settings_columns,
    variant_default_setting,
)
from boexplore.analysis.pipeline import AnalysisResult
from boexplore.io import atomic_write_text

#: Columns added to the claims table (after its original ones), in this order.
ROBUST_COLUMNS = [
    "decision_strict",
    "holds_from",
    "holds_from_steps",
    "budget_trend",
    "nonparam_test",
    "decision_nonparam",
    "nonparam_note",
    "stability",
    "stable",
    "n_resamples",
    "p_reproduced",
    "p_not_reproduced",
    "lopo",
    "lopo_changes",
    "lopo_n",
    "default_setting",
    "settings_range",
]


@dataclass
class ReleasedClaims:
    """Claims (with robustness columns), parts, units, budget curves, sensitivity."""

    report: ClaimsReport
    budget: pd.DataFrame
    sensitivity: pd.DataFrame
    boundary: pd.DataFrame | None = None

    @property
    def claims(self) -> pd.DataFrame:
        return self.report.claims


def released_claims(r: AnalysisResult, boundary: pd.DataFrame | None = None) -> ReleasedClaims:
    """Every claims table of one analysis result (``boundary``: TS boundary shares)."""
    report = claims_report(r)
    rob = robustness(r)
    sens = sensitivity_table(r, boundary)
    claims = report.claims.merge(rob.per_claim, on=KEY, how="left")
    claims = claims.merge(settings_columns(sens), on="claim_id", how="left")
    claims["default_setting"] = variant_default_setting(claims, sens, r.config["groups"])
    base_cols = [c for c in report.claims.columns if c not in ROBUST_COLUMNS]
    claims = claims[[*base_cols, *ROBUST_COLUMNS]]
    report = ClaimsReport(claims=claims, parts=report.parts, units=report.units)
    return ReleasedClaims(report=report, budget=rob.curves, sensitivity=sens, boundary=boundary)


def _pct(x: float) -> str:
    return "" if not isinstance(x, float) or math.isnan(x) else f"{100 * x:.0f} %"


def robustness_markdown(claims: pd.DataFrame) -> str:
    """Second Markdown table: what each verdict depends on."""
    df = claims.assign(
        holds_from=[_pct(x) for x in claims["holds_from"]],
        stability=[
            "" if pd.isna(s) else f"{s:.2f}{'' if st else ' (unstable)'}"
            for s, st in zip(claims["stability"], claims["stable"], strict=True)
        ],
    )
    cols = [
        "claim_id",
        "variant",
        "decision",
        "decision_strict",
        "holds_from",
        "decision_nonparam",
        "stability",
        "lopo",
        "settings_range",
    ]
    legend = (
        "decision_strict: P1-C3 with a significant > needed per adjacent pair (other rows: same "
        "as decision); holds_from: smallest budget fraction from which every larger prefix "
        "reproduces the claim; decision_nonparam: the same rule with the rank test of "
        "analysis.robustness.nonparametric; stability: fraction of seed-bootstrap resamples "
        "giving the same decision; lopo: problems whose removal alone changes the decision; "
        "settings_range: the verdict under the settings of analysis.sensitivity."
    )
    return "\n".join(
        [
            "## What each verdict depends on",
            "",
            markdown_table(df, cols).rstrip("\n"),
            "",
            legend,
            "",
        ]
    )


def write_released_claims(
    rel: ReleasedClaims,
    csv_path: str | os.PathLike,
    md_path: str | os.PathLike,
    parts_path: str | os.PathLike,
    units_path: str | os.PathLike,
    budget_path: str | os.PathLike,
    sensitivity_path: str | os.PathLike,
) -> None:
    """Write every claims table (atomic)."""
    rep = rel.report
    md = claims_markdown(rep.claims) + "\n" + robustness_markdown(rep.claims)
    outputs = [
        (csv_path, rep.claims.to_csv(index=False)),
        (md_path, md),
        (parts_path, rep.parts.to_csv(index=False)),
        (units_path, rep.units.to_csv(index=False)),
        (budget_path, rel.budget.to_csv(index=False)),
        (sensitivity_path, rel.sensitivity.to_csv(index=False)),
    ]
    for path, text in outputs:
        atomic_write_text(text, Path(path))
