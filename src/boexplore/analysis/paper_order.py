"""Compare the observed exploration order with the paper's stated order (P1-C3).

The paper's order is given as levels of *groups* (most explorative first),
e.g. ``[[random], [ucb_high], [info, kg], [ei], [pi], [ucb_low], [greedy]]``;
the config maps each group to the method labels of this run. Two outputs:

* pair list: for every pair of present labels, ``agree`` / ``disagree`` /
  ``unresolved`` against the observed partial order (pairs in the same paper
  level agree when neither observed direction holds);
* Kendall tau-b between the paper level and an observed total score (mean
  within-problem exploration rank), with a bootstrap interval over problems.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from boexplore.analysis.taxonomy import PartialOrder
from boexplore.schema import schema_defaults

# The paper's groups and order, as written in analysis.schema.yaml (the defaults' one home).
DEFAULT_GROUPS: dict[str, list[str]] = schema_defaults("analysis")["groups"]
DEFAULT_PAPER_ORDER: list[list[str]] = schema_defaults("analysis")["paper_order"]


@dataclass
class PaperLevels:
    """Paper level per present label (0 = most explorative) and notes on gaps."""

    level: dict[str, int]
    notes: list[str]


def paper_levels(
    groups: Mapping[str, Sequence[str]], order: Sequence[Sequence[str]], present: Sequence[str]
) -> PaperLevels:
    """Map present method labels to their paper level; note missing groups/labels."""
    level: dict[str, int] = {}
    notes: list[str] = []
    present_set = set(present)
    for lv, group_names in enumerate(order):
        for g in group_names:
            if g not in groups:
                raise ValueError(f"paper order names group {g!r} absent from analysis.groups")
            for label in groups[g]:
                if label in present_set:
                    level[label] = lv
                else:
                    notes.append(f"label {label!r} (group {g}) not in data; skipped")
    return PaperLevels(level=level, notes=notes)


def compare_pairs(order: PartialOrder, levels: PaperLevels) -> pd.DataFrame:
    """Every pair of labels with a paper level, judged against the observed order."""
    labels = sorted(
        (m for m in levels.level if m in order.nodes), key=lambda m: (levels.level[m], m)
    )
    rows = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            la, lb = levels.level[a], levels.level[b]
            ab, ba = order.geq(a, b), order.geq(b, a)
            if la == lb:
                paper = "≈"
                status = "agree" if ab == ba else "disagree"
            else:
                paper = "⪰"
                status = (
                    "agree" if ab and not ba else ("disagree" if ba and not ab else "unresolved")
                )
            observed = "≈" if ab and ba else ("⪰" if ab else ("⪯" if ba else "?"))
            rows.append({"a": a, "b": b, "paper": paper, "observed": observed, "status": status})
    return pd.DataFrame(rows, columns=["a", "b", "paper", "observed", "status"])


def kendall_with_paper(
    cells: pd.DataFrame, value: str, levels: PaperLevels, n_boot: int = 1000, seed: int = 0
) -> tuple[float, float, float, int]:
    """Kendall tau-b (paper level vs observed mean rank), bootstrap CI over problems.

    Both sides are oriented so that +1 means identical orders. Returns
    (tau, ci_low, ci_high, n_labels).
    """
    cells = cells[cells["method"].isin(levels.level) & cells[value].notna()]
    if cells.empty:
        return (np.nan, np.nan, np.nan, 0)
    ranks = cells.assign(
        rank=cells.groupby("problem")[value].rank(ascending=False, method="average")
    ).pivot_table(index="problem", columns="method", values="rank")
    labels = list(ranks.columns)
    paper = np.array([levels.level[m] for m in labels], dtype=float)
    R = ranks.to_numpy(float)  # (problems, labels), NaN where a method is missing

    def tau_of(rows: np.ndarray) -> float:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mr = np.nanmean(R[rows], axis=0)
        ok = np.isfinite(mr)
        if ok.sum() < 2 or np.unique(paper[ok]).size < 2 or np.unique(mr[ok]).size < 2:
            return np.nan
        return float(stats.kendalltau(paper[ok], mr[ok]).statistic)

    n_p = R.shape[0]
    tau = tau_of(np.arange(n_p))
    if n_p < 2 or not np.isfinite(tau):
        return (tau, np.nan, np.nan, len(labels))
    rng = np.random.default_rng(seed)
    b = np.array([tau_of(rng.integers(0, n_p, n_p)) for _ in range(n_boot)])
    b = b[np.isfinite(b)]
    if b.size == 0:
        return (tau, np.nan, np.nan, len(labels))
    lo, hi = np.quantile(b, [0.025, 0.975])
    return (tau, float(lo), float(hi), len(labels))
