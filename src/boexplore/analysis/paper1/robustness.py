"""How robust each paper-1 verdict is: budget curves, rank test, seed bootstrap, one problem out.

Every function re-decides the claims with the claim code itself
(:func:`boexplore.analysis.paper1.claims.claims_report` in ``light`` mode, i.e. without
the power analysis) on another view of the data (:mod:`boexplore.analysis.paper1.views`),
with the rules and prefixes of ``analysis.robustness`` fixed before results:

* **budget curves** (issue 28): the verdict, its statistic and interval at each
  budget prefix (fractions of every run's own budget, and fixed numbers of BO
  iterations after the initial design); ``holds_from`` = the smallest fraction
  from which every larger prefix reproduces the claim (the summary is paper-agnostic:
  :mod:`boexplore.analysis.claimkit.prefixes`);
* **non-parametric column** (issue 27): the same rule with a two-sided exact
  Wilcoxon (or sign) test per unit instead of the t-test;
* **stability** (issue 22): seeds resampled with replacement per problem (jointly
  for all methods), every claim re-decided; the fraction of resamples giving the
  full-data decision. Resampled seeds are treated as independent replicates (a
  seed drawn twice counts twice), so a verdict resting on one or two seeds shows
  up as unstable;
* **leave one problem out** (issue 27): the problems whose removal alone changes
  a verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.prefixes import BUDGET_COLUMNS, KEY, budget_summary
from boexplore.analysis.claimkit.stats import min_attainable_p
from boexplore.analysis.claimkit.verdict import NOT_REPRODUCED, REPRODUCED
from boexplore.analysis.paper1.claims import ClaimsReport, claims_report
from boexplore.analysis.paper1.views import (
    final_at_fraction,
    final_at_steps,
    rederive,
    resample_seeds,
)
from boexplore.analysis.pipeline import AnalysisResult


def decisions(r: AnalysisResult, *, test: str = "t", effect_boot: int = 0) -> pd.DataFrame:
    """Decision (and C3's strict one) of every claim row, without the power analysis."""
    c = claims_report(r, light=True, test=test, effect_boot=effect_boot).claims
    return c[[*KEY, "decision", "decision_strict", "value", "ci_low", "ci_high", "threshold"]]


def _prefixes(r: AnalysisResult) -> list[tuple[str, float, Callable[[], pd.DataFrame]]]:
    rc = r.config["robustness"]
    out: list[tuple[str, float, Callable[[], pd.DataFrame]]] = []
    for f in sorted(set(float(x) for x in rc["budget_fractions"]) | {1.0}):
        out.append(("fraction", f, lambda f=f: final_at_fraction(r.metrics, f)))
    for k in sorted(set(int(x) for x in rc["bo_steps"])):
        out.append(("steps", float(k), lambda k=k: final_at_steps(r.metrics, k)))
    return out


def budget_curves(r: AnalysisResult) -> pd.DataFrame:
    """Long table: per prefix, one row per claim (part = "") and one per claim part.

    Claim rows carry the claim's value / interval / decision (as in the claims
    table); part rows the part's effect (claimed direction positive) with its
    hierarchical bootstrap interval and the part decision.
    """
    n_boot = int(r.config["n_boot"])
    rows: list[dict[str, object]] = []
    for kind, value, make in _prefixes(r):
        final = make()
        if final.empty or final["problem"].nunique() == 0:
            continue
        view = rederive(r, final, n_boot)
        rep: ClaimsReport = claims_report(view, light=True, effect_boot=n_boot)
        n_eval = float(final["n"].median())
        for c in rep.claims.itertuples(index=False):
            rows.append(
                {
                    "prefix_kind": kind,
                    "prefix": value,
                    "claim_id": c.claim_id,
                    "variant": c.variant,
                    "part": "",
                    "metric": "",
                    "a_label": "",
                    "b_label": "",
                    "n_evals_median": n_eval,
                    "n_units": c.n,
                    "k_for": np.nan,
                    "k_against": np.nan,
                    "value": c.value,
                    "ci_low": c.ci_low,
                    "ci_high": c.ci_high,
                    "threshold": c.threshold,
                    "decision": c.decision,
                }
            )
        first = (
            rep.units.drop_duplicates(["claim_id", "variant", "part_name"]).set_index(
                ["claim_id", "variant", "part_name"]
            )
            if not rep.units.empty
            else None
        )
        for p in rep.parts.itertuples(index=False):
            ab = ("", "")
            if first is not None and (p.claim_id, p.variant, p.part) in first.index:
                u = first.loc[(p.claim_id, p.variant, p.part)]
                ab = (str(u["a"]), str(u["b"]))
            rows.append(
                {
                    "prefix_kind": kind,
                    "prefix": value,
                    "claim_id": p.claim_id,
                    "variant": p.variant,
                    "part": p.part,
                    "metric": p.metric,
                    "a_label": ab[0],
                    "b_label": ab[1],
                    "n_evals_median": n_eval,
                    "n_units": p.n_units,
                    "k_for": p.k_for,
                    "k_against": p.k_against,
                    "value": p.effect_mean,
                    "ci_low": p.effect_low,
                    "ci_high": p.effect_high,
                    "threshold": 0.0,
                    "decision": p.decision,
                }
            )
    return pd.DataFrame(rows, columns=BUDGET_COLUMNS)


def nonparametric(r: AnalysisResult) -> pd.DataFrame:
    """Per claim row: the decision with the rank test of ``robustness.nonparametric``.

    ``nonparam_note`` says when the test cannot reach significance at all: with s seeds
    an exact rank test has p ≥ 2^(1−s), which Holm over m units turns into m·2^(1−s).
    """
    test = str(r.config["robustness"]["nonparametric"])
    rep = claims_report(r, light=True, test=test, effect_boot=0)
    alpha = float(r.config["decision"]["alpha"])
    notes = []
    for c in rep.claims.itertuples(index=False):
        ps = rep.parts[(rep.parts["claim_id"] == c.claim_id) & (rep.parts["variant"] == c.variant)]
        tested = ps[(ps["n_units"] > 0) & (c.claim_id not in ("P1-C1", "P1-C8"))]
        blocked = [
            f"{p.part}: {p.n_units} units × {p.min_seeds} seeds, min Holm p "
            f"{p.n_units * min_attainable_p(test, int(p.min_seeds)):.3g}"
            for p in tested.itertuples(index=False)
            if p.n_units * min_attainable_p(test, int(p.min_seeds)) >= alpha
        ]
        if c.claim_id in ("P1-C1", "P1-C8"):
            notes.append("bootstrap statistic: already non-parametric")
        elif blocked:
            notes.append(f"{test} cannot reach alpha={alpha:g} after Holm on " + "; ".join(blocked))
        else:
            notes.append("")
    c = rep.claims
    return pd.DataFrame(
        {
            "claim_id": c["claim_id"],
            "variant": c["variant"],
            "nonparam_test": test,
            "decision_nonparam": c["decision"],
            "nonparam_note": notes,
        }
    )


def stability(r: AnalysisResult, full: pd.DataFrame) -> pd.DataFrame:
    """Per claim row: fraction of seed-bootstrap resamples giving the full-data decision."""
    rc = r.config["robustness"]
    n, inner = int(rc["n_resamples"]), int(rc["inner_boot"])
    cols = [*KEY, "stability", "stable", "n_resamples", "p_reproduced", "p_not_reproduced"]
    if n <= 0:
        return pd.DataFrame(columns=cols)
    rng = np.random.default_rng(int(rc["seed"]))
    draws = []
    for _ in range(n):
        view = rederive(r, resample_seeds(r.final, rng), inner)
        draws.append(decisions(view)[[*KEY, "decision"]])
    allv = pd.concat(draws, ignore_index=True).merge(
        full[[*KEY, "decision"]].rename(columns={"decision": "full"}), on=KEY
    )
    out = (
        allv.assign(
            agree=allv["decision"] == allv["full"],
            rep=allv["decision"] == REPRODUCED,
            nrep=allv["decision"] == NOT_REPRODUCED,
        )
        .groupby(KEY, sort=False)
        .agg(
            stability=("agree", "mean"),
            p_reproduced=("rep", "mean"),
            p_not_reproduced=("nrep", "mean"),
        )
        .reset_index()
    )
    out["stable"] = out["stability"] >= float(rc["stable_min"])
    out["n_resamples"] = n
    return out[cols]


def leave_one_problem_out(r: AnalysisResult, full: pd.DataFrame) -> pd.DataFrame:
    """Per claim row: problems whose removal alone changes the decision (``lopo`` text)."""
    cols = [*KEY, "lopo", "lopo_changes", "lopo_n"]
    if not r.config["robustness"]["lopo"]:
        return pd.DataFrame(columns=cols)
    n_boot = int(r.config["n_boot"])
    base = full.set_index(KEY)["decision"]
    changes: dict[tuple[str, str], list[str]] = {k: [] for k in base.index}
    problems = sorted(r.final["problem"].unique())
    for p in problems:
        view = rederive(r, r.final[r.final["problem"] != p], n_boot)
        d = decisions(view).set_index(KEY)["decision"]
        for k, dec in d.items():
            if k in changes and dec != base[k]:
                changes[k].append(f"{p} → {dec}")
    rows = []
    for k, ch in changes.items():
        text = (
            f"same without any one of {len(problems)} problems"
            if not ch
            else "changes without " + "; ".join(ch)
        )
        rows.append(
            {
                "claim_id": k[0],
                "variant": k[1],
                "lopo": text,
                "lopo_changes": len(ch),
                "lopo_n": len(problems),
            }
        )
    return pd.DataFrame(rows, columns=cols)


@dataclass
class Robustness:
    """Budget curves (long), and per claim row: budget summary, rank test, stability, LOPO."""

    curves: pd.DataFrame
    per_claim: pd.DataFrame


def robustness(r: AnalysisResult) -> Robustness:
    """Every robustness re-decision of ``r`` (see the module docstring)."""
    full = decisions(r)
    curves = budget_curves(r)
    per = full[KEY].copy()
    for extra in (
        budget_summary(curves),
        nonparametric(r),
        stability(r, full),
        leave_one_problem_out(r, full),
    ):
        per = per.merge(extra, on=KEY, how="left")
    return Robustness(curves=curves, per_claim=per)
