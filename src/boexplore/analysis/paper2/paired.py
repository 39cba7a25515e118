"""Paper 2's "A is better / worse than B" statements as paired tests on per-seed differences.

Every comparison of P2-C2 (RR-TS against GP-TS and random search), P2-C3 (each ablation's
stuck rate against RR-TS's) and P2-C5 (regret at the largest against the smallest lambda) is
one *unit*: the per-seed differences of the two methods on one problem, oriented so that a
positive mean is the claimed direction. Runs with the same seed share the initial design
(common random numbers), so seeds pair. The units of one claim are tested with paper 1's
machinery (:mod:`boexplore.analysis.claimkit.decide`): a two-sided paired test per unit
(``claims.test``: t, wilcoxon or sign), the p-values corrected within the claim
(``claims.correction``, Holm) at ``claims.alpha``; a unit significant in the claimed direction
counts *for* the claim, the other way *against*. The size comes with a t interval of the mean
difference at ``claims.level``.

A check that cannot fail decides nothing, so every family has *controls*: the same test on a
pair of runs for which the claim is false by construction (RR-TS against itself on disjoint
seed halves; random search put in RR-TS's place). A control that comes out *for* the claim
shows that the test would pass anything, and the claim's rows are then undecidable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.decide import classify_units, unit_row
from boexplore.analysis.claimkit.stats import TWO_SIDED_TESTS, t_interval
from boexplore.analysis.claimkit.verdict import NOT_REPRODUCED, REPRODUCED, UNDECIDED, Rule


@dataclass(frozen=True)
class Comparison:
    """One unit: per-seed differences (positive = the claim's direction) on one problem."""

    part: str  # what is compared, e.g. "2·R_T(gp_ts) - R_T(rr_ts)"
    problem: str
    a: str
    b: str
    diffs: np.ndarray


def seed_values(runs: pd.DataFrame, column: str) -> pd.Series:
    """``column`` of one method's per-seed rows, indexed by seed (finite values only)."""
    s = runs.set_index("seed")[column].astype(float)
    return s[np.isfinite(s.to_numpy())].sort_index()


def paired_difference(a: pd.Series, b: pd.Series, factor: float = 1.0, sign: int = 1) -> np.ndarray:
    """``sign · (factor · b − a)`` over the seeds present in both (seed-paired)."""
    common = a.index.intersection(b.index)
    return sign * (factor * b.loc[common].to_numpy() - a.loc[common].to_numpy())


def seed_halves(s: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Disjoint halves of one method's seeds, re-indexed 0..k-1 so they pair by rank.

    The first ``k = len // 2`` seeds against the next ``k`` (an odd last seed is left out):
    the two halves are the same policy, so any claimed difference between them is false.
    """
    k = len(s) // 2
    first, second = s.iloc[:k], s.iloc[k : 2 * k]
    return first.set_axis(range(k)), second.set_axis(range(k))


def decide_family(comparisons: Sequence[Comparison], th: Mapping[str, Any]) -> pd.DataFrame:
    """Unit rows of one family (a claim's units, or its controls) with p, Holm-adjusted p,
    outcome (for / against / none) and the t interval of the mean difference."""
    test = str(th["test"])
    if test not in TWO_SIDED_TESTS:
        raise ValueError(f"claims.test must be one of {sorted(TWO_SIDED_TESTS)}, got {test!r}")
    rows = []
    for c in comparisons:
        d = np.asarray(c.diffs, dtype=float)
        d = d[np.isfinite(d)]
        if d.size == 0:
            continue
        p, mean = TWO_SIDED_TESTS[test](d)
        rows.append(unit_row(c.part, c.problem, 0, c.a, c.b, d, p, mean, test))
    units = classify_units(pd.DataFrame(rows), family_rule(th)) if rows else pd.DataFrame()
    if units.empty:
        return units
    ci = [t_interval(d, float(th["level"])) for d in units["diffs"]]
    units["ci_low"] = [c[1] for c in ci]
    units["ci_high"] = [c[2] for c in ci]
    return units


def family_rule(th: Mapping[str, Any]) -> Rule:
    """The per-unit significance rule of ``parametric.claims`` (alpha, correction)."""
    return Rule(alpha=float(th["alpha"]), correction=str(th["correction"]))


def outcome_verdict(outcome: str) -> str:
    """A unit's outcome as a verdict: for -> reproduced, against -> not reproduced."""
    return {"for": REPRODUCED, "against": NOT_REPRODUCED}.get(outcome, UNDECIDED)


def unit_text(u: Mapping[str, Any] | pd.Series) -> str:
    """``mean diff [CI], p_adj (test, Holm over m) -> outcome`` for a note."""
    return (
        f"{u['part']}: mean {u['mean_diff']:.3g} [{u['ci_low']:.3g}, {u['ci_high']:.3g}], "
        f"p_adj {u['p_adj']:.2g} -> {u['outcome']}"
    )


def controls_fail(controls: pd.DataFrame) -> tuple[bool, str]:
    """Whether every control unit fails the claim (no control counted *for* it), with text."""
    if controls.empty:
        return False, "no control could be formed (too few seeds)"
    text = "; ".join(f"control {unit_text(u)}" for _, u in controls.iterrows())
    return bool((controls["outcome"] != "for").all()), text
