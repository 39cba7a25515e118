"""Claim parts: a claim is decided from parts, each a set of paired units under the rule.

``PartBuilder`` tests units (``decide``), decides and, when undecided, sizes each part
(``power``); ``rule_row`` turns a claim's parts into its row of the claims table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.decide import (
    WideTable,
    classify_units,
    paired_units,
    rule_from_config,
    summarize_part,
    wide_table,
)
from boexplore.analysis.claimkit.power import PowerNeed, seeds_problems_needed
from boexplore.analysis.claimkit.verdict import (
    MISSING,
    NOT_REPRODUCED,
    REPRODUCED,
    UNDECIDABLE_PREFIX,
    UNDECIDED,
    Rule,
    combine,
)

# The basic claims-table format shared with paper 2 (boexplore.analysis.paper2.claims imports it).
COLUMNS = [
    "claim_id",
    "claim",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "threshold",
    "verdict",
    "n",
    "note",
]
PART_COLUMNS = [
    "claim_id",
    "variant",
    "part",
    "metric",
    "subset",
    "n_units",
    "n_problems",
    "k_for",
    "k_against",
    "needed",
    "allowed_against",
    "support",
    "support_max",
    "min_seeds",
    "effect_mean",
    "effect_low",
    "effect_high",
    "decision",
    "need_seeds",
    "need_problems",
    "p_decisive_now",
    "p_decisive_at_need",
    "note",
]

#: OE metrics defined only past d points (the authors' estimator), and what a part says then.
OE_PAST_D = frozenset({"oe_ref_rel", "oe_ref"})
OE_UNDEFINED_SHORT = "the authors' OE needs more than d points"
OE_UNDEFINED = f"OE not defined at this budget ({OE_UNDEFINED_SHORT})"


class Result(Protocol):
    """What the machinery reads of an analysis result: the final table and the config."""

    final: pd.DataFrame
    config: dict[str, Any]


@dataclass
class ClaimsReport:
    """Claims table (one row per claim, per TS variant for C4), parts and unit tests."""

    claims: pd.DataFrame
    parts: pd.DataFrame
    units: pd.DataFrame


def present(r: Result, labels: Iterable[str]) -> list[str]:
    """The method labels of ``labels`` that have runs in ``r``."""
    have = set(r.final["method"].unique())
    return [m for m in labels if m in have]


class PartBuilder:
    """Collects a claim's parts and units while its rows are built (``r``: an analysis result).

    ``light`` skips the power analysis (re-decisions on budget prefixes, seed
    resamples, left-out problems and settings need the decision, not the scale);
    ``test`` is the per-unit paired test (``t``, or ``wilcoxon`` / ``sign`` for the
    non-parametric column); ``effect_boot`` overrides the resamples of the part
    effect intervals (0 = no interval).
    """

    def __init__(
        self,
        r: Result,
        *,
        light: bool = False,
        test: str = "t",
        effect_boot: int | None = None,
    ) -> None:
        self.r = r
        self.cfg = r.config
        self.rule: Rule = rule_from_config(self.cfg["decision"])
        self.light = light
        self.test = test
        self.effect_boot = int(self.cfg["n_boot"]) if effect_boot is None else int(effect_boot)
        self._wide: dict[tuple[str, str], WideTable] = {}
        self.parts: list[dict[str, Any]] = []
        self.units: list[pd.DataFrame] = []
        pw = self.cfg["power"]
        self.min_seeds = int(self.cfg["min_seeds"])
        self.seeds_grid = [s for s in pw["seeds_grid"] if s >= max(2, self.min_seeds)]
        self.problems_grid = list(pw["problems_grid"])

    def pairs(
        self,
        subset: str,
        metric: str,
        pairs: Sequence[tuple[str, str]],
        part: str,
        shift: float = 0.0,
    ) -> pd.DataFrame:
        """Paired units on ``subset`` (all, low-d, high-d) with this builder's test.

        The metric's wide table is built once per builder (see :class:`decide.WideTable`).
        """
        key = (subset, metric)
        if key not in self._wide:
            if (("all", metric)) not in self._wide:
                self._wide[("all", metric)] = wide_table(self.r.final, metric)
            full = self._wide[("all", metric)]
            lo, hi = int(self.cfg["low_d_max"]), int(self.cfg["high_d_min"])
            keep = {"low-d": lambda d: d <= lo, "high-d": lambda d: d >= hi}.get(subset)
            self._wide[key] = full if keep is None else full.subset(keep)
        return paired_units(self._wide[key], metric, pairs, part, test=self.test, shift=shift)

    def undefined_problems(self, metric: str, subset: str) -> list[str]:
        """Problems of ``subset`` on which ``metric`` is the authors' OE and no run has more
        than d points (their estimator returns nothing for such a trace)."""
        if metric not in OE_PAST_D or metric not in self.r.final.columns:
            return []
        f = self.r.final
        lo, hi = int(self.cfg["low_d_max"]), int(self.cfg["high_d_min"])
        f = {"low-d": f[f["dim"] <= lo], "high-d": f[f["dim"] >= hi]}.get(subset, f)
        defined = f[metric].notna().groupby(f["problem"]).any()
        return sorted(str(p) for p, ok in defined.items() if not ok)

    def power(self, units: pd.DataFrame) -> PowerNeed:
        pw = self.cfg["power"]
        return seeds_problems_needed(
            units,
            self.rule,
            self.seeds_grid,
            self.problems_grid,
            target=float(pw["target"]),
            n_sim=int(pw["n_sim"]),
            seed=int(pw["seed"]),
        )

    def part(
        self,
        cid: str,
        variant: str,
        part: str,
        metric: str,
        subset: str,
        units: pd.DataFrame,
        note: str = "",
    ) -> dict[str, Any]:
        """Classify, decide and (when undecided) size one claim part."""
        units = classify_units(units, self.rule)
        s = summarize_part(units, self.rule, seed=int(self.cfg["seed"]), n_boot=self.effect_boot)
        notes = [note] if note else []
        undefined = self.undefined_problems(metric, subset)
        if undefined and units.empty:
            notes = [OE_UNDEFINED]
        elif undefined:
            notes.append(f"{len(undefined)} problems left out (n <= d: {OE_UNDEFINED_SHORT})")
        if s["decision"] != MISSING and s["min_seeds"] < self.min_seeds:
            s["decision"] = UNDECIDED
            notes.append(f"fewer than min_seeds={self.min_seeds} seeds")
        need = PowerNeed(None, None, np.nan, np.nan, np.nan, np.nan)
        if s["decision"] == UNDECIDED and not self.light:
            need = self.power(units)
        row = {
            "claim_id": cid,
            "variant": variant,
            "part": part,
            "metric": metric,
            "subset": subset,
            **{k: s[k] for k in PART_COLUMNS if k in s},
            "need_seeds": need.seeds,
            "need_problems": need.problems,
            "p_decisive_now": need.p_decisive_now,
            "p_decisive_at_need": need.p_decisive,
            "note": "; ".join(notes),
        }
        self.parts.append(row)
        if not units.empty:
            self.units.append(
                units.assign(
                    claim_id=cid, variant=variant, metric=metric, subset=subset, part_name=part
                )
            )
        return row


def part_text(p: dict[str, Any]) -> str:
    """One part as the note text of its claim row."""
    if p["decision"] == MISSING and p["note"] == OE_UNDEFINED:
        return f"{p['part']}: {OE_UNDEFINED}"
    if p["decision"] == MISSING:
        return f"{p['part']}: missing data{(' (' + p['note'] + ')') if p['note'] else ''}"
    eff = (
        f", effect {p['effect_mean']:.3g} [{p['effect_low']:.3g}, {p['effect_high']:.3g}]"
        if np.isfinite(p["effect_mean"])
        else ""
    )
    need = ""
    if p["decision"] == UNDECIDED:
        need = (
            f"; needs {p['need_seeds']} seeds × {p['need_problems']} problems"
            if p["need_seeds"] is not None
            else "; not decided within the power grid"
        )
    extra = f" ({p['note']})" if p["note"] else ""
    return (
        f"{p['part']}: {p['k_for']}/{p['n_units']} for, {p['k_against']} against "
        f"(need {p['needed']}){eff} -> {p['decision']}{need}{extra}"
    )


def needs_text(parts: Sequence[dict[str, Any]]) -> str:
    """Combined scale of the undecided parts: max seeds, max problems per subset."""
    und = [p for p in parts if p["decision"] == UNDECIDED]
    if not und:
        return ""
    if any(p["n_units"] == 0 for p in und):  # C7: the mechanism never acted
        return "budgets where the mechanism acts (>= 10·d evaluations); it never acted here"
    if any(p["need_seeds"] is None for p in und):
        return "not decided within the power grid"
    seeds = max(int(p["need_seeds"]) for p in und)
    by_subset: dict[str, int] = {}
    for p in und:
        by_subset[p["subset"]] = max(by_subset.get(p["subset"], 0), int(p["need_problems"]))
    if len(by_subset) == 1:
        ((sub, m),) = by_subset.items()
        where = "" if sub == "all" else f" {sub}"
        return f"{seeds} seeds × {m}{where} problems"
    probs = " + ".join(f"{m} {sub}" for sub, m in sorted(by_subset.items()))
    return f"{seeds} seeds × {probs} problems"


def final_verdict(decision: str, needs: str, missing_note: str = "") -> str:
    """The verdict column: a decision, missing data, or undecidable with what would decide it."""
    if decision in (REPRODUCED, NOT_REPRODUCED):
        return decision
    if decision == MISSING:
        return f"{MISSING}: {missing_note}" if missing_note else MISSING
    said = needs.startswith(("not decided", "budgets", "no runs for"))
    if said or needs.split(";")[0].endswith(OE_UNDEFINED):
        return f"{UNDECIDABLE_PREFIX}: {needs}"
    return f"{UNDECIDABLE_PREFIX}: needs {needs}" if needs else UNDECIDABLE_PREFIX


def rule_row(
    claims: Mapping[str, str],
    cid: str,
    variant: str,
    statistic: str,
    parts: Sequence[dict[str, Any]],
    rule: Rule,
    note: str = "",
    missing_note: str = "",
) -> dict[str, Any]:
    """One claims-table row from its parts (``claims``: the paper's sentences by claim id)."""
    decision = combine([p["decision"] for p in parts])
    present = [p for p in parts if p["decision"] != MISSING]
    weakest = min(present, key=lambda p: (p["support"], p["support_max"])) if present else None
    if decision == MISSING and not missing_note:
        missing_note = "; ".join(p["note"] or p["part"] for p in parts)
    needs = needs_text(parts)
    missing = [p for p in parts if p["decision"] == MISSING]
    gaps = [p["part"] for p in missing if p["note"] != OE_UNDEFINED]
    no_oe = [p["part"] for p in missing if p["note"] == OE_UNDEFINED]
    if decision == UNDECIDED and (gaps or no_oe):  # a part without data blocks it: say which
        said = (["no runs for " + ", ".join(gaps)] if gaps else []) + (
            [f"{', '.join(no_oe)}: {OE_UNDEFINED}"] if no_oe else []
        )
        gap = "; ".join(said)
        needs = f"{needs}; {gap}" if needs else gap
    return {
        "claim_id": cid,
        "variant": variant,
        "claim": claims[cid],
        "statistic": statistic,
        "value": weakest["support"] if weakest else np.nan,
        "ci_low": weakest["support"] if weakest else np.nan,
        "ci_high": weakest["support_max"] if weakest else np.nan,
        "threshold": rule.support,
        "verdict": final_verdict(decision, needs, missing_note),
        "decision": decision,
        "needs": needs,
        "n": int(sum(p["n_units"] for p in present)),
        "note": "; ".join([*(part_text(p) for p in parts), *([note] if note else [])]),
    }
