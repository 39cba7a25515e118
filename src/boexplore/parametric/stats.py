"""Summary statistics for paper-2 experiments: log-log regret slopes and bootstrap intervals."""

from __future__ import annotations

import numpy as np


def loglog_slope(cum_regret: np.ndarray, start_frac: float = 0.5) -> float:
    """OLS slope b of log R_t on log t over t in [start_frac * T, T] (t = 1..T).

    R_t = c t^b gives exactly b. Rounds with R_t <= 0 (no regret yet) are dropped;
    NaN if fewer than 3 usable rounds remain.
    """
    R = np.asarray(cum_regret, dtype=float)
    if R.ndim != 1:
        raise ValueError(f"loglog_slope: expected a 1-d curve, got shape {R.shape}")
    if not 0 <= start_frac < 1:
        raise ValueError(f"loglog_slope: start_frac must be in [0, 1), got {start_frac}")
    t = np.arange(1, len(R) + 1, dtype=float)
    keep = (t >= max(1.0, start_frac * len(R))) & (R > 0)
    if keep.sum() < 3:
        return float("nan")
    return float(np.polyfit(np.log(t[keep]), np.log(R[keep]), 1)[0])


def entropy(counts: np.ndarray) -> float:
    """Shannon entropy (nats) of a histogram."""
    p = np.asarray(counts, dtype=float)
    p = p[p > 0] / p.sum()
    return float(-(p * np.log(p)).sum())
