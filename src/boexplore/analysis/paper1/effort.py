"""Optimiser-effort check: do BoTorch's default restarts / raw samples change the statistics?

The replication runs LogEI & co. with less optimiser effort (4 restarts, 256 raw samples) than
BoTorch's default (10, 1,024) to afford its budgets. This check runs one method both ways on one
problem with the same seeds and asks, per statistic (final normalised OTSD, OE, performance),
whether the two agree within seed noise: the 95 % t interval of the paired difference (alt −
base, over seeds) must lie inside ± ``margin_sd`` × the base method's across-seed standard
deviation (an equivalence test; the margin is fixed in the config before the runs).

Verdict per statistic: *equivalent* (interval inside the margin), *different* (interval entirely
outside it), else *undecided*. The row is reproduced when every statistic is equivalent, not
reproduced when one is different. A control compares the base method with ``control`` (a method
that explores differently, e.g. random search) on the primary statistic; it must not come out
equivalent, or the check could not fail.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from boexplore.analysis.claimkit.stats import t_interval
from boexplore.analysis.claimkit.verdict import (
    MISSING,
    NOT_REPRODUCED,
    REPRODUCED,
    UNDECIDABLE_PREFIX,
    UNDECIDED,
)

CLAIM = (
    "Check: the optimiser effort we use gives the same exploration and performance as "
    "BoTorch's default effort, within seed noise."
)
EQUIVALENT, DIFFERENT = "equivalent", "different"


def equivalence(base: np.ndarray, alt: np.ndarray, margin_sd: float) -> dict[str, Any]:
    """Paired equivalence of ``alt`` vs ``base`` (same seeds, same order)."""
    diff = np.asarray(alt, float) - np.asarray(base, float)
    n = diff.size
    if n < 3:
        return {"verdict": UNDECIDED, "n": n, "mean": np.nan, "low": np.nan, "high": np.nan,
                "margin": np.nan}  # fmt: skip
    mean, low, high = t_interval(diff)
    margin = float(margin_sd * np.std(np.asarray(base, float), ddof=1))
    if -margin <= low and high <= margin:
        verdict = EQUIVALENT
    elif high < -margin or low > margin:
        verdict = DIFFERENT
    else:
        verdict = UNDECIDED
    return {"verdict": verdict, "n": n, "mean": mean, "low": low, "high": high, "margin": margin}


def _simulated_verdicts(
    diff: np.ndarray,
    base: np.ndarray,
    margin_sd: float,
    n: int,
    rng: np.random.Generator,
    n_sim: int,
) -> np.ndarray:
    """Equivalence verdicts of ``n_sim`` simulated experiments of ``n`` seeds: paired
    differences normal with the pilot's mean and SD (sample mean and χ² sample SD drawn
    exactly), the margin the pilot's (plug-in, as the power analysis of the claims does)."""
    diff = np.asarray(diff, float)
    mu, sd = float(diff.mean()), float(diff.std(ddof=1))
    margin = float(margin_sd * np.std(np.asarray(base, float), ddof=1))
    mean = mu + sd / np.sqrt(n) * rng.standard_normal(n_sim)
    sd_hat = sd * np.sqrt(rng.chisquare(n - 1, n_sim) / (n - 1))
    half = float(stats.t.ppf(0.975, n - 1)) * sd_hat / np.sqrt(n)
    low, high = mean - half, mean + half
    out = np.full(n_sim, UNDECIDED, dtype=object)
    out[(low >= -margin) & (high <= margin)] = EQUIVALENT
    out[(high < -margin) | (low > margin)] = DIFFERENT
    return out


def seeds_needed(
    pairs: Mapping[str, tuple[np.ndarray, np.ndarray]],
    control: tuple[np.ndarray, np.ndarray] | None,
    margin_sd: float,
    seeds_grid: Sequence[int],
    target: float = 0.8,
    n_sim: int = 300,
    seed: int = 0,
) -> int | None:
    """Fewest seeds on the grid at which the check is decided (every statistic equivalent, or
    one different) *and* its control comes out different (shown able to fail) with
    probability ≥ ``target``; None when no grid point does. ``pairs``: per statistic the
    pilot's (base, alt) values over seeds; ``control``: (base, control) on the primary one."""
    rng = np.random.default_rng(seed)
    for n in sorted(int(k) for k in seeds_grid):
        if n < 3:
            continue
        verdicts = np.array(
            [_simulated_verdicts(a - b, b, margin_sd, n, rng, n_sim) for b, a in pairs.values()]
        )
        decided = (verdicts == EQUIVALENT).all(axis=0) | (verdicts == DIFFERENT).any(axis=0)
        if control is not None:
            b, c = control
            decided &= _simulated_verdicts(c - b, b, margin_sd, n, rng, n_sim) == DIFFERENT
        if decided.mean() >= target:
            return n
    return None


def _paired(final: pd.DataFrame, problem: str, a: str, b: str, metric: str):
    f = final[final["problem"] == problem]
    wide = f[f["method"].isin([a, b])].pivot_table(index="seed", columns="method", values=metric)
    wide = wide.dropna()
    if a not in wide or b not in wide:
        return None
    return wide[a].to_numpy(), wide[b].to_numpy()


def _text(metric: str, e: Mapping[str, Any]) -> str:
    return (
        f"{metric}: {e['verdict']} (Δ {e['mean']:.4g} [{e['low']:.4g}, {e['high']:.4g}] vs "
        f"margin ±{e['margin']:.4g}, {e['n']} seeds)"
    )


def effort_rows(final: pd.DataFrame, cfg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The P1-X1 row of ``analysis.effort_check`` ([] when the config sets none)."""
    ec = cfg.get("effort_check")
    if not ec:
        return []
    problem, base, alt = str(ec["problem"]), str(ec["base"]), str(ec["alt"])
    metrics: Sequence[str] = ec.get("metrics") or [cfg["primary_metric"], "performance"]
    margin_sd = float(ec.get("margin_sd", 1.0))
    found = {m: _paired(final, problem, base, alt, m) for m in metrics}
    row: dict[str, Any] = {
        "claim_id": "P1-X1",
        "variant": alt,
        "claim": CLAIM,
        "statistic": f"statistics equivalent within ±{margin_sd:g} seed SD ({base} vs {alt}, "
        f"{problem})",
        "threshold": 1.0,
        "ci_low": np.nan,
        "ci_high": np.nan,
        "needs": "",
    }
    if any(v is None for v in found.values()):
        missing = [m for m, v in found.items() if v is None]
        return [{**row, "value": np.nan, "verdict": f"missing data: {', '.join(missing)}",
                 "decision": MISSING, "n": 0, "note": ""}]  # fmt: skip
    checks = {m: equivalence(a, b, margin_sd) for m, (a, b) in found.items()}
    verdicts = [c["verdict"] for c in checks.values()]
    if all(v == EQUIVALENT for v in verdicts):
        decision = REPRODUCED
    elif DIFFERENT in verdicts:
        decision = NOT_REPRODUCED
    else:
        decision = UNDECIDED
    notes = [_text(m, c) for m, c in checks.items()]
    control = ec.get("control")
    pair = _paired(final, problem, base, str(control), metrics[0]) if control else None
    control_verdict = None
    if pair is not None:
        c = equivalence(*pair, margin_sd)
        control_verdict = c["verdict"]
        notes.append(
            f"control {base} vs {control} (must not be equivalent): {_text(metrics[0], c)}"
        )
    verdict = {REPRODUCED: REPRODUCED, NOT_REPRODUCED: NOT_REPRODUCED}.get(decision)
    power = cfg.get("power") or {}
    grid = power.get("seeds_grid") or [3, 5, 8, 10, 15, 20, 30, 50]
    size = functools.partial(
        seeds_needed, margin_sd=margin_sd, seeds_grid=grid, target=float(power.get("target", 0.8)),
        n_sim=int(power.get("n_sim", 300)), seed=int(power.get("seed", 0)),
    )  # fmt: skip
    if verdict is None:  # size the check from this pilot
        n = size(found, None)
        row["needs"] = f"{n} seeds" if n else ""
        verdict = UNDECIDABLE_PREFIX + (
            f": needs {n} seeds" if n else ": not decided within the power grid"
        )
    if pair is not None and control_verdict != DIFFERENT:  # a check must be shown able to fail
        n = size({}, pair)
        notes.append(
            f"the control fails the check from {n} seeds (power analysis)" if n else
            f"the control does not fail the check within the power grid (up to {max(grid)} seeds)"
        )  # fmt: skip
    return [
        {
            **row,
            "value": float(np.mean([v == EQUIVALENT for v in verdicts])),
            "verdict": verdict,
            "decision": decision,
            "n": int(min(c["n"] for c in checks.values())),
            "note": "; ".join(notes),
        }
    ]
