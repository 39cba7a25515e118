"""Verdicts as functions of the budget (issue 28): one panel per claim row.

Each panel shows the claim's statistic with its interval at every budget
fraction: for C1 / C3 / C8 the claim statistic (ρ, τ, support) against its
threshold; for the directional claims the effect of each part on the primary
metric (claimed direction positive, hierarchical-bootstrap interval) coloured by
the method the part is about. The verdict at each prefix is the marker strip at
the top (filled = reproduced, ✕ = not reproduced, open = undecided).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.verdict import MISSING, NOT_REPRODUCED, REPRODUCED
from boexplore.plotting.io import save_figure
from boexplore.plotting.style import label_color, set_style

CLAIM_STAT = {"P1-C1": "Spearman ρ", "P1-C3": "Kendall τ", "P1-C8": "support"}
SHORT_TITLE = {
    "P1-C1": "C1 OTSD ~ OE",
    "P1-C2": "C2 explorers > exploiters",
    "P1-C3": "C3 taxonomy (τ)",
    "P1-C4": "C4 TS: < random low d, > high d",
    "P1-C5": "C5 EI vs UCB",
    "P1-C6": "C6 batches explore more",
    "P1-C7": "C7 TR / RAASP explore less",
    "P1-C8": "C8 best = intermediate",
}
LINESTYLES = ["-", "--", ":", "-."]


def _subject(cid: str, variant: str, a: str, b: str) -> str:
    """The method a part is about (its colour)."""
    if cid == "P1-C4":
        return variant or a
    if cid == "P1-C7":
        return b
    return a


def _verdict_strip(ax: Any, x: np.ndarray, decisions: Iterable[str]) -> None:
    for xi, d in zip(x, decisions, strict=True):
        if d == REPRODUCED:
            ax.plot(
                xi,
                1.04,
                "o",
                color="black",
                ms=5,
                transform=ax.get_xaxis_transform(),
                clip_on=False,
            )
        elif d == NOT_REPRODUCED:
            ax.plot(
                xi,
                1.04,
                "x",
                color="black",
                ms=6,
                mew=1.5,
                transform=ax.get_xaxis_transform(),
                clip_on=False,
            )
        else:
            ax.plot(
                xi,
                1.04,
                "o",
                mfc="none",
                color="black",
                ms=5,
                transform=ax.get_xaxis_transform(),
                clip_on=False,
            )


def _fractions(budget: pd.DataFrame) -> pd.DataFrame:
    fr = budget[budget["prefix_kind"] == "fraction"].copy()
    fr["variant"] = fr["variant"].fillna("").astype(str)
    return fr


def budget_panels(budget: pd.DataFrame) -> list[tuple[str, str]]:
    """(claim, variant) of every claim row with data at some budget fraction, in table order
    (C3's tie-aware parts are not panels; a claim whose methods the tier does not run is
    left out)."""
    fr = _fractions(budget)
    rows = fr[fr["part"].fillna("") == ""]
    with_data = rows[rows["decision"] != MISSING]
    present = set(zip(with_data["claim_id"], with_data["variant"], strict=True))
    keys = dict.fromkeys(zip(rows["claim_id"], rows["variant"], strict=True))
    return [k for k in keys if k in present]


def _final_phrase(claim: pd.DataFrame) -> str:
    """The verdict at the full budget and whether it still moved at the last prefix:
    ``"reproduced (settled)"`` or ``"reproduced (undecided at 75 %)"``."""
    if claim.empty:
        return ""
    final = str(claim["decision"].iloc[-1])
    if len(claim) < 2:
        return final
    before, prefix = str(claim["decision"].iloc[-2]), float(claim["prefix"].iloc[-2])
    if before == final:
        return f"{final} (settled)"
    return f"{final} ({before} at {100 * prefix:g} %)"


def plot_budget_curves(
    budget: pd.DataFrame,
    png_path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    config_section: Mapping[str, Any] | None = None,
    metric: str = "otsd_norm",
) -> list[Path]:
    """Statistic + interval + verdict of every claim row against the budget fraction.

    Claims without data at every prefix (a tier that runs none of their methods) get no panel;
    a part without runs is named "(no runs)" in its panel's legend."""
    set_style()
    fr = _fractions(budget)
    keys = budget_panels(budget)
    n = max(1, len(keys))
    ncol = 3
    nrow = math.ceil(n / ncol)
    fig, axes = plt.subplots(nrow, ncol, squeeze=False, figsize=(4.2 * ncol, 2.9 * nrow))
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for ax, (cid, var) in zip(axes.flat, keys, strict=False):
        g = fr[(fr["claim_id"] == cid) & (fr["variant"] == var)]
        claim = g[g["part"].fillna("") == ""].sort_values("prefix")
        x = 100 * claim["prefix"].to_numpy(float)
        if cid in CLAIM_STAT:
            ax.plot(x, claim["value"], color="black", marker=".", lw=1.5)
            ax.fill_between(x, claim["ci_low"], claim["ci_high"], color="grey", alpha=0.25, lw=0)
            thr = claim["threshold"].dropna()
            if len(thr):
                ax.axhline(float(thr.iloc[0]), color="grey", ls="--", lw=0.8, label="threshold")
            ax.set_ylabel(CLAIM_STAT[cid])
        else:
            parts = g[(g["part"].fillna("") != "") & (g["metric"] == metric)]
            for k, (name, pg) in enumerate(parts.groupby("part", sort=False)):
                pg = pg.sort_values("prefix")
                px = 100 * pg["prefix"].to_numpy(float)
                subj = _subject(cid, var, str(pg["a_label"].iloc[0]), str(pg["b_label"].iloc[0]))
                col = label_color(subj) if subj and subj != "nan" else "black"
                ls = LINESTYLES[k % len(LINESTYLES)]
                if pg["value"].isna().all():
                    name = f"{name} (no runs)"
                ax.plot(px, pg["value"], color=col, ls=ls, marker=".", lw=1.5, label=name)
                ax.fill_between(px, pg["ci_low"], pg["ci_high"], color=col, alpha=0.15, lw=0)
            ax.axhline(0.0, color="grey", ls="--", lw=0.8)
            ax.set_ylabel(f"effect on {metric}\n(claimed direction > 0)")
            if len(parts):
                ax.legend(fontsize=6, loc="best", frameon=False)
        _verdict_strip(ax, x, claim["decision"])
        title = SHORT_TITLE.get(cid, cid) + (f" [{var}]" if var else "")
        ax.set_title(f"{title}\nfull budget: {_final_phrase(claim)}", fontsize=8, pad=14)
        ax.set_xlim(0, 105)
        ax.set_xlabel("% of each run's budget")
    fig.suptitle(
        "Claim statistics vs budget (● reproduced, ✕ not reproduced, ○ undecided)", fontsize=10
    )
    fig.tight_layout()
    return save_figure(fig, png_path, inputs, config_section)
