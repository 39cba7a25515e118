"""Verdict logic of the claims table, fixed before looking at results.

A claim's statistic comes with an interval. Rule: *reproduced* when the whole
interval lies above the threshold (``ci_low > threshold``), *not reproduced*
when it lies below (``ci_high < threshold``), *inconclusive* otherwise, and
also inconclusive when the statistic is missing or the evidence is too small
(fewer seeds than ``min_seeds`` or fewer units than ``min_n``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"


def interval_verdict(
    value: float, ci_low: float, ci_high: float, threshold: float, n: int, min_n: int = 1
) -> str:
    """Verdict from a statistic, its interval and the fixed threshold."""
    vals = (value, ci_low, ci_high)
    if n < min_n or any(v is None or not math.isfinite(v) for v in vals):
        return INCONCLUSIVE
    if ci_low > threshold:
        return REPRODUCED
    if ci_high < threshold:
        return NOT_REPRODUCED
    return INCONCLUSIVE


def combine(verdicts: Iterable[str]) -> str:
    """All parts must hold: any failure fails, all reproduced reproduces."""
    v = list(verdicts)
    if not v:
        return INCONCLUSIVE
    if NOT_REPRODUCED in v:
        return NOT_REPRODUCED
    if all(x == REPRODUCED for x in v):
        return REPRODUCED
    return INCONCLUSIVE
