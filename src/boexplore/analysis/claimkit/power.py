"""Power analysis: how many seeds and problems each paper-1 claim needs to be decided.

Input is a *pilot* (any finished run): for every unit of a claim part (see
:mod:`boexplore.analysis.claimkit.decide`) its standardised per-seed effect — Cohen's
d_z = mean / sd of the seed-paired differences for t-test units, or the
bootstrap z-score divided by √seeds for bootstrap units (P1-C8). For a scale of
N seeds × M problems the decision procedure is simulated ``n_sim`` times:

* problems: the pilot problems, plus M − M₀ problems drawn with replacement
  from them (a larger experiment is assumed to add problems *like* the pilot's);
* each unit's test statistic is drawn at N seeds — a t statistic with N − 1
  degrees of freedom and non-centrality d_z·√N (normal mean and χ² variance,
  i.e. the exact sampling law of the paired t-test under normal differences),
  or a z-score N(d·√N, 1) for bootstrap units;
* two-sided p-values are Holm-corrected over the part and the claim rule
  (:class:`boexplore.analysis.claimkit.verdict.Rule`) gives reproduced / not reproduced
  / undecided.

The reported need is the cheapest grid point (fewest runs N·M, then fewest
problems) at which a decisive verdict (either way) has probability ≥
``target``. Pilot effects are plug-in estimates: with 2-3 pilot seeds they are
noisy (|d_z| is biased upwards when the pilot sd is small), so treat the need
as an order of magnitude. Effects that are truly zero never become decisive;
the analysis then says "not decided within the power grid".

Interval claims use closed forms: P1-C1 (Spearman ρ vs threshold) needs
n = 3 + 1.06·((z_{1−α/2} + z_{power}) / |atanh ρ − atanh ρ₀|)² cells
(Fisher z with the Bonett–Wright variance factor for Spearman);
P1-C3's τ interval is scaled with 1/√M from its bootstrap width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from boexplore.analysis.claimkit.verdict import NOT_REPRODUCED, REPRODUCED, Rule


@dataclass
class PowerNeed:
    """Cheapest (seeds, problems) with P(decisive) ≥ target, or None when off the grid."""

    seeds: int | None
    problems: int | None
    p_decisive: float
    p_reproduced: float
    p_not_reproduced: float
    p_decisive_now: float

    def text(self) -> str:
        """``N seeds × M problems`` or ``beyond the grid``."""
        if self.seeds is None or self.problems is None:
            return "not decided within the power grid"
        return f"{self.seeds} seeds × {self.problems} problems"


def _holm_significant(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise Holm on (sims, units) p-values (NaN = absent unit): significant mask, units."""
    valid = np.isfinite(p)
    m = valid.sum(axis=1)
    ps = np.where(valid, p, np.inf)
    order = np.argsort(ps, axis=1, kind="stable")
    sorted_p = np.take_along_axis(ps, order, axis=1)
    rank = np.arange(p.shape[1])[None, :]
    factor = np.maximum(m[:, None] - rank, 1)
    adj = np.maximum.accumulate(np.minimum(factor * sorted_p, 1.0), axis=1)
    sig_sorted = (adj < alpha) & np.isfinite(sorted_p)
    sig = np.zeros_like(sig_sorted)
    np.put_along_axis(sig, order, sig_sorted, axis=1)
    return sig, m


def _holm_counts(
    p: np.ndarray, sign: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise Holm on (sims, units) p-values (NaN = absent unit): counts for / against / n."""
    sig, m = _holm_significant(p, alpha)
    k_for = (sig & (sign > 0)).sum(axis=1)
    k_against = (sig & (sign < 0)).sum(axis=1)
    return k_for, k_against, m


def _unit_matrix(units: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(problems, max units per problem) effects and bootstrap-kind flags, NaN padded."""
    by_problem = [g for _, g in units.groupby("problem", sort=True)]
    width = max(len(g) for g in by_problem)
    eff = np.full((len(by_problem), width), np.nan)
    kind = np.zeros((len(by_problem), width), dtype=bool)
    for i, g in enumerate(by_problem):
        eff[i, : len(g)] = g["effect"].to_numpy(float)
        kind[i, : len(g)] = (g["kind"] == "z").to_numpy()
    return eff, kind


def _draw_units(
    eff: np.ndarray, kind: np.ndarray, n_problems: int, n_sim: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(sims, units) matrices: the pilot problems plus problems resampled from them."""
    m0 = eff.shape[0]
    extra = max(0, n_problems - m0)
    E = np.repeat(eff.reshape(1, -1), n_sim, axis=0)
    Z = np.repeat(kind.reshape(1, -1), n_sim, axis=0)
    if extra:
        picks = rng.integers(0, m0, size=(n_sim, extra))
        E = np.hstack([E, eff[picks].reshape(n_sim, -1)])
        Z = np.hstack([Z, kind[picks].reshape(n_sim, -1)])
    return E, Z


def simulate_decisions(
    units: pd.DataFrame,
    rule: Rule,
    n_seeds: int,
    n_problems: int,
    n_sim: int = 400,
    seed: int = 0,
    matrices: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[float, float]:
    """Simulated P(reproduced), P(not reproduced) of a part at ``n_seeds`` × ``n_problems``."""
    if units.empty:
        return (np.nan, np.nan)
    if n_seeds < 2:
        raise ValueError(f"simulate_decisions needs n_seeds >= 2, got {n_seeds}")
    rng = np.random.default_rng(seed)
    eff, kind = matrices if matrices is not None else _unit_matrix(units)
    E, Z = _draw_units(eff, kind, n_problems, n_sim, rng)
    valid = np.isfinite(E)
    e = np.where(valid, E, 0.0)
    n = float(n_seeds)
    mean = e + rng.standard_normal(E.shape) / math.sqrt(n)  # sample mean of diffs, sd = 1
    var = rng.chisquare(n - 1, size=E.shape) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n)
    p_t = 2.0 * stats.t.sf(np.abs(t), n - 1)
    zstat = e * math.sqrt(n) + rng.standard_normal(E.shape)
    p_z = 2.0 * stats.norm.sf(np.abs(zstat))
    p = np.where(Z, p_z, p_t)
    sign = np.where(Z, np.sign(zstat), np.sign(mean))
    p = np.where(valid, p, np.nan)
    k_for, k_against, m = _holm_counts(p, sign, rule.alpha)
    cache: dict[tuple[int, int, int], str] = {}
    dec = []
    for key in zip(k_for.tolist(), k_against.tolist(), m.tolist(), strict=True):
        if key not in cache:
            cache[key] = rule.decide(*key)
        dec.append(cache[key])
    d = np.asarray(dec)
    return float((d == REPRODUCED).mean()), float((d == NOT_REPRODUCED).mean())


def seeds_problems_needed(
    units: pd.DataFrame,
    rule: Rule,
    seeds_grid: Sequence[int],
    problems_grid: Sequence[int],
    target: float = 0.8,
    n_sim: int = 400,
    seed: int = 0,
) -> PowerNeed:
    """Cheapest grid point where the part is decided (either way) with probability ≥ target."""
    if units.empty:
        return PowerNeed(None, None, np.nan, np.nan, np.nan, np.nan)
    m0 = int(units["problem"].nunique())
    n0 = max(2, int(units["n_seeds"].min())) if "n_seeds" in units.columns else 2
    mats = _unit_matrix(units)
    pr, pn = simulate_decisions(units, rule, n0, m0, n_sim, seed, mats)
    now = pr + pn
    grid = sorted(
        {(int(s), int(m)) for s in seeds_grid if s >= 2 for m in {m0, *problems_grid} if m >= m0},
        key=lambda sm: (sm[0] * sm[1], sm[1], sm[0]),
    )
    for s, m in grid:
        pr, pn = simulate_decisions(units, rule, s, m, n_sim, seed, mats)
        if pr + pn >= target:
            return PowerNeed(s, m, pr + pn, pr, pn, now)
    return PowerNeed(None, None, pr + pn, pr, pn, now)


def correlation_cells_needed(
    rho: float, threshold: float, alpha: float = 0.05, power: float = 0.8
) -> int | None:
    """Cells for a Spearman ρ interval to clear ``threshold`` (None when ρ == threshold)."""
    if not (np.isfinite(rho) and abs(rho) < 1 and abs(threshold) < 1):
        return None
    gap = abs(math.atanh(rho) - math.atanh(threshold))
    if gap < 1e-9:
        return None
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return int(math.ceil(3 + 1.06 * (z / gap) ** 2))


def interval_problems_needed(
    value: float,
    ci_low: float,
    ci_high: float,
    threshold: float,
    n_problems: int,
    level: float = 0.95,
    power: float = 0.8,
) -> int | None:
    """Problems for a bootstrap-over-problems interval to clear ``threshold`` (1/√M scaling)."""
    vals = (value, ci_low, ci_high)
    if n_problems < 1 or not all(np.isfinite(v) for v in vals):
        return None
    zl = stats.norm.ppf(0.5 + level / 2)
    se = (ci_high - ci_low) / (2 * zl)
    gap = abs(value - threshold)
    if se <= 0:
        return n_problems
    if gap < 1e-9:
        return None
    need = n_problems * ((zl + stats.norm.ppf(power)) * se / gap) ** 2
    return int(max(n_problems, math.ceil(need)))


def family_seeds_needed(
    effects: Sequence[float],
    alpha: float,
    seeds_grid: Sequence[int],
    target: float = 0.8,
    n_sim: int = 400,
    seed: int = 0,
) -> list[int | None]:
    """Per unit of one Holm family: the fewest seeds (of ``seeds_grid``) at which the unit's
    paired t-test is significant, either way, with probability >= ``target``.

    ``effects`` are the units' standardised effects (Cohen's d_z); all units of the family are
    simulated together at each seed count (t statistics as in :func:`simulate_decisions`) and
    Holm-corrected over the family, so a unit's need accounts for the correction. A unit with
    a zero effect, or one not decided within the grid, gets None.
    """
    eff = np.asarray(effects, dtype=float)
    need: list[int | None] = [None] * eff.size
    if eff.size == 0:
        return need
    rng = np.random.default_rng(seed)
    for n_seeds in sorted(int(s) for s in seeds_grid if s >= 2):
        n = float(n_seeds)
        e = np.where(np.isfinite(eff), eff, 0.0)
        mean = e + rng.standard_normal((n_sim, eff.size)) / math.sqrt(n)
        var = rng.chisquare(n - 1, size=(n_sim, eff.size)) / (n - 1)
        t = mean / np.sqrt(var / n)
        p = np.where(np.isfinite(eff), 2.0 * stats.t.sf(np.abs(t), n - 1), np.nan)
        sig, _ = _holm_significant(p, alpha)
        power = sig.mean(axis=0)
        for i in range(eff.size):
            if need[i] is None and e[i] != 0 and power[i] >= target:
                need[i] = n_seeds
        if all(x is not None or e[i] == 0 for i, x in enumerate(need)):
            break
    return need
