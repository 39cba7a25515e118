"""When is a paper-2 run "stuck", and does that rule tell exploring policies from greedy ones?

P2-C3 says that removing re-randomisation or regularisation "breaks exploration" in a
non-trivial fraction of seeds. The paper's text was not available; the reconstruction needs a
per-seed rule for "stuck". Two rules are defined (``claims.stuck_rule``):

* ``late_play`` - stuck when the share of the last ``e1.late_window`` plays at the optimum x*
  is below ``claims.stuck_late_frac``. It measures "has not converged yet": a policy that
  keeps exploring (random search) is stuck in every seed under it.
* ``locked`` - stuck when one point whose noise-free regret gap exceeds
  ``claims.stuck_gap_min`` holds at least ``claims.stuck_lock_share`` of the last plays
  (``late_lock_share``): the policy keeps re-querying a wrong point, i.e. it stopped
  exploring before finding x* or a point within one noise level of it. A policy that still
  explores spreads its late plays and is not stuck; one that converged to x*, or to a
  neighbour that one observation cannot tell from it, is not stuck either. This rule is our
  reconstruction, not the paper's wording.

A rule is only allowed to decide P2-C3 when a control shows it separates failure from
slowness on the claim's own problems (:func:`stuck_control`): the exploring controls
(``claims.explorers``: GP-TS, random search) must be stuck rarely - pooled over the
problems, the upper end of their rate's exact interval below ``claims.stuck_min_frac`` - and
the greedy control (``claims.greedy``: the GP posterior-mean maximiser ``gp_greedy``) often -
the lower end of its interval at or above ``claims.stuck_min_frac``. Otherwise P2-C3 is
undecidable, with the rates as the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.stats import binomial_ci

STUCK_RULES = ("late_play", "locked")


class StuckRuleError(ValueError):
    """A stuck rule that is unknown or cannot be evaluated on the given per-seed table."""


def stuck_flags(runs: pd.DataFrame, th: Mapping[str, Any]) -> np.ndarray:
    """Per-seed stuck indicator (1.0 / 0.0; NaN where the rule's input is missing).

    ``th`` is the resolved ``parametric.claims`` section (``stuck_rule`` and its threshold).
    """
    rule = str(th["stuck_rule"])
    if rule == "late_play":
        col, flag = "late_frac_opt", lambda v: v < float(th["stuck_late_frac"])
    elif rule == "locked":
        col, flag = "late_lock_share", lambda v: v >= float(th["stuck_lock_share"])
    else:
        raise StuckRuleError(f"claims.stuck_rule must be one of {STUCK_RULES}, got {rule!r}")
    if col not in runs.columns:
        raise StuckRuleError(f"stuck rule {rule!r} needs the per-seed column {col!r}")
    v = runs[col].to_numpy(float)
    return np.where(np.isfinite(v), flag(v).astype(float), np.nan)


def rule_text(th: Mapping[str, Any]) -> str:
    """The stuck rule in words, for statistics and notes."""
    if th["stuck_rule"] == "late_play":
        return f"late play at x* < {th['stuck_late_frac']}"
    return f"one point with gap > {th['stuck_gap_min']} holds >= {th['stuck_lock_share']} of late plays"


@dataclass(frozen=True)
class StuckControl:
    """Stuck rates of the control policies and whether the rule separates them."""

    rates: pd.DataFrame  # problem_key (or "pooled"), method, role, n, k, rate, ci_low, ci_high
    validated: bool
    reason: str

    def summary(self) -> str:
        """Pooled rates of every control, e.g. ``gp_ts 0.03 [0.00, 0.14]``."""
        pooled = self.rates[self.rates["problem_key"] == "pooled"]
        return ", ".join(
            f"{r.method} {r.rate:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]"
            for r in pooled.itertuples()
        )


def _rate_row(key: str, method: str, role: str, flags: np.ndarray, level: float) -> dict:
    f = flags[np.isfinite(flags)]
    rate, lo, hi = binomial_ci(int(f.sum()), int(f.size), level)
    n, k = int(f.size), int(f.sum())
    return dict(problem_key=key, method=method, role=role, n=n, k=k, rate=rate, ci_low=lo, ci_high=hi)  # fmt: skip


def stuck_control(
    per_seed: pd.DataFrame,
    problems: Sequence[str],
    th: Mapping[str, Any],
    extra: Sequence[str] = (),
) -> StuckControl:
    """Stuck rates of ``claims.explorers`` and ``claims.greedy`` (plus ``extra`` methods, shown
    but not judged) per problem and pooled over ``problems``, and the rule's validation."""
    level, thr = float(th["level"]), float(th["stuck_min_frac"])
    roles = {m: "explorer" for m in th["explorers"]} | {m: "greedy" for m in th["greedy"]}
    roles |= {m: "shown" for m in extra if m not in roles}
    rows = []
    sub = per_seed[per_seed["problem_key"].isin(list(problems))]
    for method, role in roles.items():
        runs = sub[sub["method"] == method]
        flags = stuck_flags(runs, th) if len(runs) else np.array([])
        for key in problems:
            mine = runs["problem_key"].to_numpy() == key
            if mine.any():
                rows.append(_rate_row(key, method, role, flags[mine], level))
        rows.append(_rate_row("pooled", method, role, flags, level))
    rates = pd.DataFrame(rows)
    pooled = rates[rates["problem_key"] == "pooled"].set_index("method")
    missing = [m for m in (*th["explorers"], *th["greedy"]) if pooled.loc[m, "n"] == 0]
    if missing:
        return StuckControl(rates, False, f"no control runs for {', '.join(missing)}")
    loud = [m for m in th["explorers"] if not pooled.loc[m, "ci_high"] < thr]
    quiet = [m for m in th["greedy"] if not pooled.loc[m, "ci_low"] >= thr]
    if not loud and not quiet:
        return StuckControl(rates, True, "")
    why = [f"exploring {m} is not rarely stuck (CI high >= {thr})" for m in loud]
    why += [f"greedy {m} is not often stuck (CI low < {thr})" for m in quiet]
    return StuckControl(rates, False, "; ".join(why))


def rule_sensitivity(
    traces: pd.DataFrame,
    problems: Sequence[str],
    th: Mapping[str, Any],
    gaps: Sequence[float],
    shares: Sequence[float],
    late_window: int,
) -> pd.DataFrame:
    """The ``locked`` rule's control over a grid of ``stuck_gap_min`` x ``stuck_lock_share``:
    one row per setting with the pooled rates of every control and whether it validates.

    Shows whether the separation of exploring from greedy policies hangs on the chosen
    thresholds (``traces``: E1 run files of the control policies, at least).
    """
    from boexplore.analysis.paper2.summary import e1_per_seed  # the per-seed table's maker

    rows = []
    for gap in gaps:
        per = e1_per_seed(traces, late_window=late_window, gap_min=float(gap))
        for share in shares:
            setting = {
                **th,
                "stuck_rule": "locked",
                "stuck_gap_min": gap,
                "stuck_lock_share": share,
            }
            ctl = stuck_control(per, problems, setting)
            pooled = ctl.rates[ctl.rates["problem_key"] == "pooled"].set_index("method")
            rows.append(
                {
                    "stuck_gap_min": gap,
                    "stuck_lock_share": share,
                    "validated": ctl.validated,
                    **{f"{m}_k": int(pooled.loc[m, "k"]) for m in pooled.index},
                    **{f"{m}_n": int(pooled.loc[m, "n"]) for m in pooled.index},
                    "reason": ctl.reason,
                }  # fmt: skip
            )
    return pd.DataFrame(rows)
