"""Likelihood-free BO (LFBO) classification weights, maximisation convention.

Per observation i the classifier logit u_i is trained with the convex loss
``pos_w_i * softplus(-u_i) + neg_w_i * softplus(u_i)``: every point is a
negative (weight 1) and improving points are also positives with the utility
weight w_i (PI: 1[y > tau], EI: max(y - tau, 0)); tau is the empirical
(1 - gamma)-quantile of y. At the population optimum the odds exp(u) equal
E[u(y; tau) | x] (the acquisition), so argmax of the logit = argmax of PI / EI.

``balance=True`` reproduces the official code's rescaling (EI weights divided
by their mean, class balancing by (n1 + n0)/n1 and (n1 + n0)/n0, then all
weights divided by their overall mean), which only changes the odds by a
constant factor.
"""

from __future__ import annotations

import numpy as np

UTILITIES = ("ei", "pi")


def lfbo_weights(
    y: np.ndarray, gamma: float = 0.33, utility: str = "ei", balance: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(pos_w, neg_w) per observation for the weighted-classification loss above."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or len(y) == 0:
        raise ValueError(f"lfbo_weights: y must be a non-empty 1-d array, got shape {y.shape}")
    if not 0 < gamma < 1:
        raise ValueError(f"lfbo_weights: gamma must be in (0, 1), got {gamma}")
    if utility not in UTILITIES:
        raise ValueError(f"lfbo_weights: utility must be one of {UTILITIES}, got {utility!r}")
    tau = np.quantile(y, 1.0 - gamma)
    positive = y > tau
    if utility == "pi":
        pos_w = positive.astype(float)
    else:
        pos_w = np.where(positive, y - tau, 0.0)
        if positive.any():
            pos_w = pos_w / pos_w[positive].mean()
    neg_w = np.ones_like(y)
    if balance and positive.any():
        n1, n0 = int(positive.sum()), len(y)
        pos_w = pos_w * (n1 + n0) / n1
        neg_w = neg_w * (n1 + n0) / n0
        mean_w = (pos_w[positive].sum() + neg_w.sum()) / (n1 + n0)
        pos_w, neg_w = pos_w / mean_w, neg_w / mean_w
    return pos_w, neg_w
