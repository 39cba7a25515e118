"""Where each paper-1 verdict holds: every claim part re-decided per band of dimension.

The paper states its claims for "low d" and "high d"; our tiers read low d at d = 2-6 and
high d at d = 50-180. A part decided on the high-d problems pooled can hold at d = 50-60 and
not at d = 180. This view re-applies the part's own rule (``analysis.decision``: the
per-unit paired tests of the released units table, corrected within the band, then the
support rule) to the units of the problems in each band, and says at how many evaluations
each band was read. Parts without units (interval verdicts: C1's correlation, C3's rank
agreement) are read on all problems together and have no band view.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from boexplore.analysis.claimkit.decide import classify_units, rule_from_config, summarize_part
from boexplore.analysis.claimkit.markdown import markdown_table
from boexplore.analysis.claimkit.verdict import MISSING, UNDECIDED

#: Bands of d (name, lowest, highest): the paper's low-d range, the mid dimensions some tiers
#: run, and the high-d problems at d = 50-60, 100 and 180.
D_BANDS: tuple[tuple[str, int, int], ...] = (
    ("2-6", 1, 6),
    ("7-49", 7, 49),
    ("50-60", 50, 60),
    ("100", 61, 100),
    ("180", 101, 10**6),
)

PART_KEY = ["claim_id", "variant", "part_name", "metric", "subset"]
COLUMNS = [
    "claim_id", "variant", "part", "metric", "band", "problems", "n_units", "k_for",
    "k_against", "min_seeds", "decision", "evaluations",
]  # fmt: skip


def band_of(d: int) -> str:
    """The band a dimension falls in."""
    return next(name for name, lo, hi in D_BANDS if lo <= int(d) <= hi)


def _evaluations(problems: list[str], budgets: Mapping[str, int]) -> str:
    """The budgets (evaluations per run) the band's problems were read at: ``200`` or ``100-120``."""
    vals = sorted({int(budgets[p]) for p in problems if p in budgets})
    if not vals:
        return ""
    return str(vals[0]) if len(vals) == 1 else f"{vals[0]}-{vals[-1]}"


def band_parts(
    units: pd.DataFrame, analysis: Mapping[str, Any], budgets: Mapping[str, int]
) -> pd.DataFrame:
    """One row per (claim part, band with units): the part's rule on that band's units.

    ``units``: the released ``claims_paper1_units.csv``; ``analysis``: the tier's ``analysis``
    section (its ``decision`` rule and ``min_seeds``); ``budgets``: problem -> evaluations.
    """
    if units.empty:
        return pd.DataFrame(columns=COLUMNS)
    rule = rule_from_config(analysis["decision"])
    min_seeds = int(analysis.get("min_seeds", 1))
    units = units.assign(
        band=units["dim"].map(band_of), variant=units["variant"].fillna("").astype(str)
    )
    rows = []
    order = {name: i for i, (name, _, _) in enumerate(D_BANDS)}
    for key, g in units.groupby(PART_KEY, sort=False, dropna=False):
        for band, b in sorted(g.groupby("band"), key=lambda kv: order[kv[0]]):
            b = classify_units(b.drop(columns=["p_adj", "outcome"], errors="ignore"), rule)
            s = summarize_part(b, rule, n_boot=0)
            decision = s["decision"]
            if decision != MISSING and s["min_seeds"] < min_seeds:
                decision = UNDECIDED
            problems = sorted(b["problem"].unique())
            rows.append(
                {
                    "claim_id": key[0],
                    "variant": key[1],
                    "part": key[2],
                    "metric": key[3],
                    "band": band,
                    "problems": len(problems),
                    "n_units": s["n_units"],
                    "k_for": s["k_for"],
                    "k_against": s["k_against"],
                    "min_seeds": s["min_seeds"],
                    "decision": decision,
                    "evaluations": _evaluations(problems, budgets),
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def bands_markdown(bands: pd.DataFrame, tier: str) -> str:
    """The band view as one table: a row per claim part, a column per band."""
    if bands.empty:
        return f"# Paper-1 verdicts by d band ({tier})\n\nNo claim part has unit tests here.\n"
    present = [name for name, _, _ in D_BANDS if name in set(bands["band"])]
    rows = []
    for key, g in bands.groupby(["claim_id", "variant", "part"], sort=False):
        row = {"claim": key[0] + (f" ({key[1]})" if key[1] else ""), "part": key[2]}
        by = g.set_index("band")
        for band in present:
            if band in by.index:
                r = by.loc[band]
                row[f"d {band}"] = (
                    f"{r['decision']} ({r['k_for']}/{r['n_units']} for, {r['problems']} "
                    f"problem{'s' if r['problems'] != 1 else ''}, n = {r['evaluations']})"
                )
            else:
                row[f"d {band}"] = "·"
        rows.append(row)
    intro = (
        f"# Paper-1 verdicts by d band ({tier})\n\n"
        "Each claim part re-decided on the problems of one band of d by its own rule (the "
        "per-unit paired tests, corrected within the band, then the support rule); a cell "
        "reads: verdict (units for / units, problems, evaluations per run). `·`: no problem "
        "of the part in that band. Parts read on all problems together (C1's correlation, "
        "C3's rank agreement) have no band view. Generated from `claims_paper1_bands.csv`.\n\n"
    )
    return intro + markdown_table(pd.DataFrame(rows)) + "\n"
