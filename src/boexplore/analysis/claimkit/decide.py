"""Per-unit paired tests across seeds and the claim-level rule over units.

Every directional paper-1 claim ("A explores more than B on these problems")
is decided in two steps, both fixed in ``analysis.decision`` before results:

1. **Per unit, across seeds.** A unit is one problem (× one pair of method
   labels when a group has several labels). Final exploration values of A and
   B are paired by seed (runs with the same seed share the initial design) and
   the differences, oriented so that positive = the claimed direction, get a
   two-sided one-sample t-test. The p-values of all units of one claim part
   are Holm-corrected (family-wise error over the part's problems), so a
   significant unit is evidence on *that* problem, not an artefact of testing
   many problems.
2. **Over units, the claim-level rule** (:class:`boexplore.analysis.claimkit.verdict.Rule`):
   reproduced when at least ``support`` (2/3) of the units are significant in
   the claimed direction and at most ``max_against`` (none) significant
   against it; not reproduced when a unit contradicts it significantly (or the
   support can no longer be reached); undecided otherwise, which the power
   analysis turns into "needs N seeds × M problems".

Why this operationalises the sentences of the paper: the paper's claims are
statements about *problems* ("in high d TS often exceeds random search",
"trust regions consistently reduce exploration"), and its evidence is
per-problem curves over seeds. A claim that holds on most problems with a
seed-level effect on each and no problem where it is reversed is what those
sentences assert; pooling seeds of different problems (a sign test over
(problem, seed) pairs or an exact binomial over problems) instead either
ignores that seeds within a problem are correlated or cannot reach a verdict
with the 2-5 problems per side that a single machine can run (5/5 problems
give a Clopper–Pearson lower bound of 0.478). The rule needs no minimum
number of problems to *refute* a claim (one significant reversal does) and
needs ``ceil(support·M)`` significant problems to accept it. Unit-level effect
sizes are also reported with a hierarchical bootstrap interval (problems,
then seeds within problems) for the magnitude.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.stats import (
    TWO_SIDED_TESTS,
    adjust_pvalues,
    hierarchical_bootstrap_ci,
)
from boexplore.analysis.claimkit.verdict import MISSING, Rule

UNIT_COLUMNS = [
    "part",
    "problem",
    "dim",
    "a",
    "b",
    "n_seeds",
    "mean_diff",
    "sd_diff",
    "effect",
    "kind",
    "p",
    "p_adj",
    "outcome",
]


@dataclass(frozen=True)
class WideTable:
    """One metric as a (problem × seed) × method matrix: the input of :func:`paired_units`.

    Built once per metric and reused by every claim part (pivoting per part dominated
    the cost of re-deciding the claims on thousands of resamples).
    """

    values: np.ndarray
    col: dict[str, int]
    problem_of: np.ndarray
    dims: dict[str, int]

    def subset(self, keep_problem: Callable[[int], bool]) -> WideTable:
        """Rows of the problems whose dimension passes ``keep_problem``."""
        ok = np.array([keep_problem(self.dims[p]) for p in self.problem_of], dtype=bool)
        dims = {p: d for p, d in self.dims.items() if keep_problem(d)}
        return WideTable(self.values[ok], self.col, self.problem_of[ok], dims)


def wide_table(final: pd.DataFrame, metric: str) -> WideTable:
    """:class:`WideTable` of ``metric`` (first row per problem, seed, method)."""
    if final.empty or metric not in final.columns:
        return WideTable(np.empty((0, 0)), {}, np.empty(0, dtype=object), {})
    keep = final[["problem", "dim", "seed", "method", metric]].drop_duplicates(
        ["problem", "seed", "method"]
    )
    wide = keep.pivot(index=["problem", "seed"], columns="method", values=metric)
    return WideTable(
        wide.to_numpy(float),
        {m: i for i, m in enumerate(wide.columns)},
        wide.index.get_level_values("problem").to_numpy(),
        {str(k): int(v) for k, v in keep.groupby("problem")["dim"].first().items()},
    )


def unit_row(
    part: str,
    problem: str,
    dim: int,
    a: str,
    b: str,
    d: np.ndarray,
    p: float,
    mean: float,
    kind: str,
) -> dict[str, Any]:
    """One unit row (a problem's seed-paired differences ``d`` of a vs b, tested by ``kind``).

    ``effect`` = mean / sd (Cohen's d_z); constant differences get an effectively infinite
    standardised effect (±1e3) so the power analysis treats them as decided.
    """
    sd = float(d.std(ddof=1)) if d.size > 1 else np.nan
    if d.size > 1 and sd > 0:
        effect = mean / sd
    else:
        effect = float(np.sign(mean)) * 1e3 if mean != 0 else 0.0
    return {
        "part": part,
        "problem": problem,
        "dim": dim,
        "a": a,
        "b": b,
        "n_seeds": int(d.size),
        "mean_diff": mean,
        "sd_diff": sd,
        "effect": effect,
        "kind": kind,
        "p": p,
        "diffs": d,
    }


def paired_units(
    final: pd.DataFrame | WideTable,
    metric: str,
    pairs: Sequence[tuple[str, str]],
    part: str,
    sign: int = 1,
    *,
    test: str = "t",
    shift: float = 0.0,
) -> pd.DataFrame:
    """One row per (problem, a, b) with both labels present: seed-paired ``sign·(a − b) + shift``.

    ``diffs`` (an object column) keeps the per-seed differences for the
    hierarchical bootstrap; ``effect`` = mean / sd of the differences (Cohen's
    d_z, the per-seed standardised effect the power analysis extrapolates).
    ``test`` names the two-sided paired test (``t``, ``wilcoxon``, ``sign``:
    :data:`boexplore.analysis.claimkit.stats.TWO_SIDED_TESTS`). ``shift`` > 0 turns the
    test into a non-inferiority test of "a ⪰ b up to a margin" (the tie-aware ⪰
    of P1-C3): *for* means a − b > −margin significantly, *against* means a is
    below b by more than the margin significantly.
    """
    p_test = TWO_SIDED_TESTS[test]
    rows: list[dict[str, Any]] = []
    w = final if isinstance(final, WideTable) else wide_table(final, metric)
    if w.values.size == 0:
        return pd.DataFrame(columns=[*UNIT_COLUMNS, "diffs"])
    dims, col, values, problem_of = w.dims, w.col, w.values, w.problem_of
    for problem in sorted(set(problem_of)):
        wide = values[problem_of == problem]
        g_dim = int(dims[problem])
        for a, b in pairs:
            if a not in col or b not in col or a == b:
                continue
            d = sign * (wide[:, col[a]] - wide[:, col[b]]) + shift
            d = d[np.isfinite(d)]
            if d.size == 0:
                continue
            p, mean = p_test(d)
            rows.append(unit_row(part, problem, g_dim, a, b, d, p, mean, test))
    return pd.DataFrame(
        rows, columns=[c for c in UNIT_COLUMNS if c not in ("p_adj", "outcome")] + ["diffs"]
    )


def classify_units(units: pd.DataFrame, rule: Rule) -> pd.DataFrame:
    """Add ``p_adj`` (correction over the part) and ``outcome`` ∈ {for, against, none}."""
    out = units.copy()
    if out.empty:
        out["p_adj"] = pd.Series(dtype=float)
        out["outcome"] = pd.Series(dtype=str)
        return out
    out["p_adj"] = adjust_pvalues(out["p"].to_numpy(float), rule.correction)
    sig = out["p_adj"] < rule.alpha
    direction = np.sign(out["mean_diff"].to_numpy(float))
    out["outcome"] = np.where(
        sig & (direction > 0), "for", np.where(sig & (direction < 0), "against", "none")
    )
    return out


def summarize_part(
    units: pd.DataFrame, rule: Rule, seed: int = 0, n_boot: int = 1000
) -> dict[str, Any]:
    """Counts, the rule's decision and the effect with its hierarchical bootstrap interval."""
    n = len(units)
    k_for = int((units["outcome"] == "for").sum()) if n else 0
    k_against = int((units["outcome"] == "against").sum()) if n else 0
    eff = lo = hi = np.nan
    if n and "diffs" in units.columns and n_boot > 0:  # n_boot = 0: decision only (fast)
        groups = [
            np.concatenate([np.asarray(d, float) for d in g["diffs"]])
            for _, g in units.groupby("problem")
        ]
        eff, lo, hi = hierarchical_bootstrap_ci(groups, n_boot=n_boot, seed=seed)
    return {
        "n_units": n,
        "n_problems": int(units["problem"].nunique()) if n else 0,
        "k_for": k_for,
        "k_against": k_against,
        "needed": rule.needed(n) if n else 0,
        "allowed_against": rule.allowed_against(n) if n else 0,
        "support": k_for / n if n else np.nan,
        "support_max": (n - k_against) / n if n else np.nan,
        "decision": rule.decide(k_for, k_against, n) if n else MISSING,
        "min_seeds": int(units["n_seeds"].min()) if n else 0,
        "effect_mean": eff,
        "effect_low": lo,
        "effect_high": hi,
    }


def rule_from_config(decision: dict[str, Any]) -> Rule:
    """The :class:`Rule` of the ``analysis.decision`` config section."""
    return Rule(
        alpha=float(decision["alpha"]),
        correction=str(decision["correction"]),
        support=float(decision["support"]),
        max_against=float(decision["max_against"]),
    )
