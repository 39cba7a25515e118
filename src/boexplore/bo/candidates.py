"""Candidate point generators: Sobol points in a box and RAASP perturbations.

RAASP (random axis-aligned subspace perturbations): copy one of the best
observed points and replace a random subset of its coordinates, each chosen
independently with probability ``p = min(prob_numerator / d, max_prob)`` (at
least one coordinate always changes), by uniform values inside the box. In
d = 100 a candidate thus differs from its parent in ~20 coordinates on average
(the published 20/d rule). The cap ``max_prob`` (0.5 by default) matters only
for d < 40: without it every coordinate is replaced at d <= 20 and the
"perturbations" are plain uniform points; with it a candidate keeps about half
of its parent's coordinates, so RAASP has a real local component at every d.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.quasirandom import SobolEngine


def sobol_points(n: int, lower: torch.Tensor, upper: torch.Tensor, seed: int) -> torch.Tensor:
    """``n`` scrambled Sobol points (seeded) in the box [lower, upper]."""
    d = lower.shape[-1]
    engine = SobolEngine(d, scramble=True, seed=int(seed))
    u = engine.draw(n, dtype=lower.dtype).to(lower.device)  # drawn on the CPU, same numbers
    return lower + (upper - lower) * u


def raasp_probability(d: int, prob_numerator: float = 20.0, max_prob: float = 0.5) -> float:
    """Per-coordinate perturbation probability ``min(prob_numerator / d, max_prob)``."""
    return min(prob_numerator / d, max_prob, 1.0)


def raasp_perturb(
    parents: torch.Tensor,
    n: int,
    lower: torch.Tensor,
    upper: torch.Tensor,
    rng: np.random.Generator,
    prob_numerator: float = 20.0,
    max_prob: float = 0.5,
    stats: dict[str, float] | None = None,
) -> torch.Tensor:
    """``n`` RAASP candidates from ``parents`` (k, d), cycling through the parents.

    Each coordinate is resampled uniformly in [lower, upper] with probability
    ``raasp_probability(d, prob_numerator, max_prob)``; rows with no coordinate
    chosen get one random coordinate, so every candidate differs from its
    parent. ``stats`` (optional) receives ``raasp_n_perturbed``, the mean number
    of replaced coordinates per candidate (the trace column of that name).
    """
    if parents.ndim != 2 or parents.shape[0] == 0:
        raise ValueError(
            f"raasp_perturb: parents must be (k, d) with k >= 1, got {tuple(parents.shape)}"
        )
    k, d = parents.shape
    prob = raasp_probability(d, prob_numerator, max_prob)
    mask = rng.random((n, d)) < prob
    empty = ~mask.any(axis=1)
    mask[np.flatnonzero(empty), rng.integers(0, d, size=int(empty.sum()))] = True
    if stats is not None:
        stats["raasp_n_perturbed"] = float(mask.sum(axis=1).mean()) if n else float("nan")
    lo = lower.detach().cpu().numpy()
    hi = upper.detach().cpu().numpy()
    fresh = lo + (hi - lo) * rng.random((n, d))
    base = parents.detach().cpu().numpy()[np.arange(n) % k]
    base = np.clip(base, lo, hi)
    out = np.where(mask, fresh, base)
    return torch.as_tensor(out, dtype=parents.dtype, device=parents.device)


def raasp_pool(
    X: torch.Tensor,
    y_model: torch.Tensor,
    n: int,
    lower: torch.Tensor,
    upper: torch.Tensor,
    rng: np.random.Generator,
    seed: int,
    n_best: int = 5,
    fraction: float = 0.5,
    prob_numerator: float = 20.0,
    max_prob: float = 0.5,
    stats: dict[str, float] | None = None,
) -> torch.Tensor:
    """Mix of RAASP perturbations of the ``n_best`` best points and Sobol points (n rows)."""
    n_pert = int(round(fraction * n))
    order = torch.argsort(y_model.reshape(-1), descending=True)[: max(1, n_best)]
    pert = raasp_perturb(X[order], n_pert, lower, upper, rng, prob_numerator, max_prob, stats)
    uni = sobol_points(n - n_pert, lower, upper, seed)
    return torch.cat([pert, uni], dim=0)
