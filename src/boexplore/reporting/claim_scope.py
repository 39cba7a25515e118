"""Where a paper-1 verdict was decided, read from a tier's committed tables.

A verdict holds at the budgets, seeds and problems it was decided at: this module says which
(from the units table and the run summary) and whether the verdict still moves between the
two largest budget prefixes (from the budget-curve table), so every claims row states both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd


def _span(lo: float, hi: float, unit: str = "") -> str:
    """``"8"`` or ``"8–20"`` (integers), with an optional unit after."""
    text = f"{int(lo)}" if int(lo) == int(hi) else f"{int(lo)}–{int(hi)}"
    return f"{text}{unit}"


def _has_text(value: object) -> bool:
    return (
        value is not None and not (isinstance(value, float) and pd.isna(value)) and str(value) != ""
    )


def _same_variant(frame: pd.DataFrame, variant: object) -> pd.Series:
    """Rows of ``frame`` for a claims row's variant (a row without one takes every variant)."""
    if not _has_text(variant):
        return pd.Series(True, index=frame.index)
    return frame["variant"].astype(str) == str(variant)


@dataclass(frozen=True)
class ClaimScope:
    """A tier's units, run summary and budget curve, to describe each claims row."""

    units: pd.DataFrame
    runs: pd.DataFrame
    budget: pd.DataFrame

    @classmethod
    def of_tier(cls, tables: Path) -> ClaimScope | None:
        """The scope tables next to ``claims_paper1.csv`` (None when the run summary is absent)."""
        runs_csv = tables / "runs_summary.csv"
        if not runs_csv.is_file():
            return None
        units_csv = tables / "claims_paper1_units.csv"
        budget_csv = tables / "claims_paper1_budget.csv"
        units = pd.read_csv(units_csv) if units_csv.is_file() else pd.DataFrame()
        budget = pd.read_csv(budget_csv) if budget_csv.is_file() else pd.DataFrame()
        return cls(units, pd.read_csv(runs_csv), budget)

    def decided_at(self, claim_id: str, variant: object) -> str:
        """``"tested at 12 problems (d = 2–100), 30–60 evaluations, 8 seeds"``.

        Problems and seeds are those of the claim's units (every problem of the tier for a
        claim without units, e.g. the correlation of P1-C1); evaluations are each problem's
        largest run length.
        """
        units = self.units
        if len(units) and "claim_id" in units.columns:
            units = units[(units["claim_id"] == claim_id) & _same_variant(units, variant)]
        else:
            units = units.iloc[0:0]
        runs = self.runs
        if len(units):
            runs = runs[runs["problem"].isin(set(units["problem"]))]
            seeds = units["n_seeds"]
        else:
            if _has_text(variant) and str(variant) in set(runs["method"]):
                # a check of one method (e.g. an effort setting): where that method ran
                runs = runs[
                    runs["problem"].isin(set(runs.loc[runs["method"] == variant, "problem"]))
                ]
            seeds = runs.groupby(["problem", "method"])["seed"].nunique()
        if runs.empty:
            return ""
        dims = runs.groupby("problem")["dim"].first()
        evals = runs.groupby("problem")["n_evals"].max()
        return (
            f"tested at {len(dims)} problem{'s' if len(dims) != 1 else ''} "
            f"(d = {_span(dims.min(), dims.max())}), "
            f"{_span(evals.min(), evals.max())} evaluations, {_span(seeds.min(), seeds.max())} seeds"
        )

    def last_move(self, claim_id: str, variant: object) -> str:
        """Whether the row's verdict changes between the two largest budget prefixes."""
        b = self.budget
        if b.empty or "prefix_kind" not in b.columns:
            return ""
        rows = b[(b["prefix_kind"] == "fraction") & b["part"].isna() & (b["claim_id"] == claim_id)]
        rows = rows[_same_variant(rows, variant)].sort_values("prefix")
        if len(rows) < 2:
            return ""
        (p0, d0), (p1, d1) = rows[["prefix", "decision"]].iloc[-2:].itertuples(index=False)
        pct0, pct1 = f"{100 * float(p0):g} %", f"{100 * float(p1):g} %"
        if d0 == d1:
            return f"settled: {d1} at {pct0} and {pct1} of the budget"
        return f"still moving at the largest budget: {d0} at {pct0}, {d1} at {pct1}"
