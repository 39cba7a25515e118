"""OTSD: observation traveling salesman distance, and its normalisation Psi.

``otsd(X)[t-1]`` is the length of the closed tour through x_1..x_t built online
by cheapest insertion in chronological order (PAPERS.md, paper 1): the tour
starts as the loop on x_1, x_t goes between the consecutive tour nodes (a, b)
minimising |a-x_t| + |x_t-b| - |a-b| (ties: earliest edge walking from x_1),
and nodes are never re-ordered. O(T^2 d) for all prefixes.

Costs within ``tour.TIE_TOLERANCE * sqrt(d)`` (1e-10 sqrt(d)) of the minimum count
as ties, so float64 rounding cannot break the earliest-edge rule (e.g. for
repeated points); the authors' float32 code has coarser ties still.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from boexplore.metrics.distances import distance_rows
from boexplore.metrics.tour import TourBuilder
from boexplore.metrics.validation import as_points


def psi(d: int, t: ArrayLike) -> np.ndarray | float:
    """Upper bound Psi(d, t) = 2 sqrt(5d) (1.5 t)^(1 - 1/d) on a tour through t points of [0,1]^d."""
    if int(d) != d or d < 1:
        raise ValueError(f"psi: dimension d must be a positive integer, got {d!r}")
    tt = np.asarray(t, dtype=np.float64)
    if np.any(~np.isfinite(tt)) or np.any(tt < 1):
        raise ValueError("psi: t must be >= 1 (number of points in the prefix)")
    out = 2.0 * np.sqrt(5.0 * d) * (1.5 * tt) ** (1.0 - 1.0 / d)
    return float(out) if out.ndim == 0 else out


def _run(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OTSD per prefix and the final tour of validated points ``X``."""
    T, d = X.shape
    builder = TourBuilder(d=d, capacity=T)
    out = np.empty(T, dtype=np.float64)
    for t, row in enumerate(distance_rows(X)):
        out[t] = builder.add(row)
    return out, builder.tour()


def otsd(X: ArrayLike, bounds: ArrayLike | None = None) -> np.ndarray:
    """OTSD for every prefix: array of length T, ``otsd(X)[0] == 0``, non-decreasing."""
    return _run(as_points(X, bounds))[0]


def otsd_tour(X: ArrayLike, bounds: ArrayLike | None = None) -> np.ndarray:
    """Final tour (point indices in walk order from x_1) whose closed length is ``otsd(X)[-1]``."""
    return _run(as_points(X, bounds))[1]


def tour_length(X: ArrayLike, tour: ArrayLike) -> float:
    """Length of the closed tour visiting the rows of ``X`` in order ``tour`` and returning."""
    P = np.asarray(X, dtype=np.float64)[np.asarray(tour, dtype=np.int64)]
    if len(P) < 2:
        return 0.0
    return float(np.linalg.norm(P - np.roll(P, -1, axis=0), axis=1).sum())


def otsd_normalized(X: ArrayLike, bounds: ArrayLike | None = None) -> np.ndarray:
    """OTSD_t / Psi(d, t) per prefix (the authors' normalisation; <= 1 in practice)."""
    A = as_points(X, bounds)
    T, d = A.shape
    return _run(A)[0] / psi(d, np.arange(1, T + 1))
