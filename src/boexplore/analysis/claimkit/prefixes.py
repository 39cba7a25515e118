"""Budget prefixes of a claims table, knowing no paper: the long table of verdicts at each
prefix of every run's budget, and from which prefix on a verdict holds.

A paper's re-decision code fills :data:`BUDGET_COLUMNS` (one row per claim, ``part = ""``,
and one per claim part, at each prefix); :func:`budget_summary` condenses the claim rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from boexplore.analysis.claimkit.verdict import MISSING, NOT_REPRODUCED, REPRODUCED, UNDECIDED

KEY = ["claim_id", "variant"]
SHORT = {REPRODUCED: "R", NOT_REPRODUCED: "N", UNDECIDED: "U", MISSING: "-"}
BUDGET_COLUMNS = [
    "prefix_kind",
    "prefix",
    "claim_id",
    "variant",
    "part",
    "metric",
    "a_label",
    "b_label",
    "n_evals_median",
    "n_units",
    "k_for",
    "k_against",
    "value",
    "ci_low",
    "ci_high",
    "threshold",
    "decision",
]


def holds_from(prefixes: Sequence[float], decs: Sequence[str]) -> float:
    """Smallest prefix from which every later prefix is reproduced (NaN if the last is not)."""
    pairs = sorted(zip(prefixes, decs, strict=True))
    if not pairs or pairs[-1][1] != REPRODUCED:
        return math.nan
    start = pairs[-1][0]
    for p, d in reversed(pairs):
        if d != REPRODUCED:
            break
        start = p
    return start


def budget_summary(curves: pd.DataFrame) -> pd.DataFrame:
    """Per claim row: ``holds_from`` (fraction), ``holds_from_steps`` and a trend text."""
    claim_rows = curves[curves["part"] == ""]
    out = []
    for (cid, var), g in claim_rows.groupby(KEY, sort=False):
        fr = g[g["prefix_kind"] == "fraction"].sort_values("prefix")
        st = g[g["prefix_kind"] == "steps"].sort_values("prefix")
        h = holds_from(fr["prefix"].tolist(), fr["decision"].tolist())
        hs = holds_from(st["prefix"].tolist(), st["decision"].tolist())
        seq = "/".join(SHORT.get(d, "?") for d in fr["decision"])
        pct = "/".join(f"{100 * p:.0f}" for p in fr["prefix"])
        vals = " → ".join(f"{v:.2g}" for v in fr["value"])
        if math.isfinite(h):
            trend = f"reproduced from {100 * h:.0f} % of the budget"
        elif (fr["decision"] == REPRODUCED).any():
            first = fr.loc[fr["decision"] == REPRODUCED, "prefix"].min()
            trend = f"reproduced at {100 * first:.0f} % but not at the full budget"
        elif (fr["decision"] == NOT_REPRODUCED).any():
            trend = f"reproduced at no prefix ({pct} %: {seq})"
        else:
            trend = f"decided at no prefix ({pct} %: {seq})"
        if math.isfinite(hs):
            trend += f"; from {hs:.0f} BO steps"
        out.append(
            {
                "claim_id": cid,
                "variant": var,
                "holds_from": h,
                "holds_from_steps": hs,
                "budget_trend": f"{trend}; value {vals} at {pct} %",
            }
        )
    return pd.DataFrame(out, columns=[*KEY, "holds_from", "holds_from_steps", "budget_trend"])
