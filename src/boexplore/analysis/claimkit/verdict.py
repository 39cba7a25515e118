"""Verdict vocabulary and rules of the claims table, fixed before looking at results.

Two kinds of evidence produce verdicts:

* an *interval statistic* (P1-C1's ρ, P1-C3's τ): reproduced when the whole
  interval lies above the threshold (``ci_low > threshold``), not reproduced
  when it lies below (``ci_high < threshold``), undecided otherwise;
* a *directional rule over units* (:class:`Rule`, used by P1-C2 … P1-C8): each
  unit (a problem, or a problem × method pair) is tested across seeds and
  counts *for* the claim, *against* it, or neither; see
  :mod:`boexplore.analysis.claimkit.decide`.

Final verdicts are ``reproduced``, ``not reproduced``, ``undecidable at this
scale: needs N seeds × M problems`` (the size comes from
:mod:`boexplore.analysis.claimkit.power`) or ``missing data: …`` when a claim's methods
or problems are absent from the run. Undecided is never final: the power
analysis either names the scale that decides it or says that no scale on its
grid does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
UNDECIDED = "undecided"  # internal: turned into an "undecidable at this scale" verdict
INCONCLUSIVE = UNDECIDED  # backwards-compatible alias
MISSING = "missing data"
UNDECIDABLE_PREFIX = "undecidable at this scale"


def interval_verdict(
    value: float, ci_low: float, ci_high: float, threshold: float, n: int, min_n: int = 1
) -> str:
    """Verdict from a statistic, its interval and the fixed threshold (``undecided`` if unsure)."""
    vals = (value, ci_low, ci_high)
    if n < min_n or any(v is None or not math.isfinite(v) for v in vals):
        return UNDECIDED
    if ci_low > threshold:
        return REPRODUCED
    if ci_high < threshold:
        return NOT_REPRODUCED
    return UNDECIDED


def upper_interval_verdict(ci_low: float, ci_high: float, threshold: float) -> str:
    """Verdict of a claim "statistic < threshold" (the mirror of :func:`interval_verdict`).

    Reproduced when the whole interval lies below the threshold, not reproduced when it
    lies at or above it, undecided otherwise or when the interval is not finite.
    """
    if any(v is None or not math.isfinite(v) for v in (ci_low, ci_high)):
        return UNDECIDED
    if ci_high < threshold:
        return REPRODUCED
    if ci_low >= threshold:
        return NOT_REPRODUCED
    return UNDECIDED


def combine(verdicts: Iterable[str]) -> str:
    """All parts must hold: any failure fails, all reproduced reproduces, missing parts stay missing."""
    v = list(verdicts)
    if not v:
        return MISSING
    if NOT_REPRODUCED in v:
        return NOT_REPRODUCED
    if all(x == REPRODUCED for x in v):
        return REPRODUCED
    if all(x == MISSING for x in v):
        return MISSING
    return UNDECIDED


@dataclass(frozen=True)
class Rule:
    """Claim-level rule over units that were each tested across seeds.

    A unit is *for* the claim when its two-sided paired test is significant
    after ``correction`` (over all units of the claim part) at ``alpha`` with
    the effect in the claimed direction, *against* when significant the other
    way. The part is reproduced when at least ``support`` of the units are for
    it and at most ``max_against`` of them against it; not reproduced when more
    than ``max_against`` are against it, or when even turning every
    non-significant unit into support could not reach ``support``; undecided
    otherwise (more seeds or problems can still decide it).
    """

    alpha: float = 0.05
    correction: str = "holm"
    support: float = 2 / 3
    max_against: float = 0.0

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"Rule.alpha must be in (0, 1), got {self.alpha}")
        if not 0 < self.support <= 1:
            raise ValueError(f"Rule.support must be in (0, 1], got {self.support}")
        if not 0 <= self.max_against < 1:
            raise ValueError(f"Rule.max_against must be in [0, 1), got {self.max_against}")

    def needed(self, n: int) -> int:
        """Units that must support the claim out of ``n``."""
        return max(1, math.ceil(self.support * n - 1e-9))

    def allowed_against(self, n: int) -> int:
        """Units that may contradict it out of ``n``."""
        return math.floor(self.max_against * n + 1e-9)

    def decide(self, k_for: int, k_against: int, n: int) -> str:
        """Verdict of a part with ``k_for`` / ``k_against`` significant units out of ``n``."""
        if n <= 0:
            return MISSING
        if k_against > self.allowed_against(n):
            return NOT_REPRODUCED
        if k_for >= self.needed(n):
            return REPRODUCED
        if n - k_against < self.needed(n):
            return NOT_REPRODUCED
        return UNDECIDED


def undecidable_text(seeds: int | None, problems: str | int | None) -> str:
    """``undecidable at this scale: needs N seeds × M problems`` (or beyond the power grid)."""
    if seeds is None or problems is None:
        return f"{UNDECIDABLE_PREFIX}: not decided within the power grid"
    return f"{UNDECIDABLE_PREFIX}: needs {seeds} seeds × {problems} problems"
