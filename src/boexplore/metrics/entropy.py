"""OE: observation entropy, a Kozachenko-Leonenko k-NN estimate per prefix.

For the first N points (k = max(1, floor(ln(N+1)))):

    H_N = psi(N) - psi(k) + ln V_d + (d/N) * sum_i ln eps_k(i),   V_d = pi^(d/2) / Gamma(d/2 + 1)

``variant="kl"`` (default, textbook): eps_k(i) is the distance from x_i to its
k-th nearest *other* point. Exact duplicates are counted once: the estimate is
that of the set of distinct points seen so far (N = their number), because a
repeated point adds no spread and a zero distance would make the estimate -inf.
A prefix with fewer than 2 distinct points has no estimate (NaN).

``variant="reference"`` reproduces the authors' public code: the k-NN query
counts the point itself (so k = 1 gives distance 0 and the k-th neighbour is
the (k-1)-th other point), 1e-10 is added inside the log, duplicates are kept.
Their array entry j is our entry N-1 with N = d + j; we also report N = T.

ln V_d uses lgamma, so any d works (the authors' math.gamma overflows at d >= 342).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import digamma

from boexplore.metrics.distances import distance_rows
from boexplore.metrics.neighbours import NeighbourState
from boexplore.metrics.validation import as_points

Variant = Literal["kl", "reference"]
VARIANTS: tuple[str, ...] = ("kl", "reference")
#: Jitter the authors add inside the log (reference variant only).
REFERENCE_JITTER = 1e-10


def k_schedule(n: int) -> int:
    """Neighbour order k = max(1, floor(ln(n + 1))) for a prefix of n points."""
    return max(1, int(math.floor(math.log(n + 1))))


def max_k(T: int) -> int:
    """Largest k used by any prefix of at most T points."""
    return k_schedule(max(int(T), 1))


def log_unit_ball_volume(d: int) -> float:
    """ln V_d for the Euclidean unit ball in R^d (radius 1), via lgamma."""
    return 0.5 * d * math.log(math.pi) - math.lgamma(0.5 * d + 1.0)


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")


def _min_points(d: int, min_points: int | None) -> int:
    if min_points is None:
        return d
    if int(min_points) != min_points or min_points < 1:
        raise ValueError(f"min_points must be a positive integer, got {min_points!r}")
    return int(min_points)


class EntropyAccumulator:
    """Both OE variants for a growing prefix; used by the batch functions and the tracker."""

    def __init__(
        self, d: int, capacity: int = 64, k_max: int = 8, min_points: int | None = None
    ) -> None:
        self.d = int(d)
        self.min_points = _min_points(self.d, min_points)
        self.log_vd = log_unit_ball_volume(self.d)
        self.k_max = max(int(k_max), 1)
        self.capacity = capacity
        self.kl = NeighbourState(self.k_max, capacity, skip_duplicates=True)
        self.ref = NeighbourState(
            max(self.k_max - 1, 1), capacity, skip_duplicates=False, log_offset=REFERENCE_JITTER
        )
        self.n = 0

    def add(self, dist_row: np.ndarray) -> None:
        """Add the next point given its distances to all earlier points."""
        self.kl.add(dist_row)
        self.ref.add(dist_row)
        self.n += 1

    def needs_rebuild(self) -> bool:
        """True when the next prefix needs a larger k than the stored neighbour lists hold."""
        return k_schedule(self.n + 1) > self.k_max

    def value(self, variant: str = "kl", min_points: int | None = None) -> float:
        """OE of the current prefix (NaN when undefined, see module docstring).

        ``min_points`` overrides the accumulator's cut-off for this call only.
        """
        N = self.n
        if N < (self.min_points if min_points is None else min_points):
            return math.nan
        if variant == "kl":
            n = self.kl.count
            k = k_schedule(n)
            if n < k + 1:
                return math.nan
            s = self.kl.log_sum(k - 1)
        else:
            n = N
            k = k_schedule(n)
            s = n * math.log(REFERENCE_JITTER) if k == 1 else self.ref.log_sum(k - 2)
        return float(digamma(n) - digamma(k) + self.log_vd + self.d * s / n)


def entropy_all(X: np.ndarray, min_points: int | None = None) -> dict[str, np.ndarray]:
    """Both OE variants per prefix of validated points ``X`` (one pass)."""
    T, d = X.shape
    acc = EntropyAccumulator(d, capacity=T, k_max=max_k(T), min_points=min_points)
    out = {v: np.empty(T) for v in VARIANTS}
    for t, row in enumerate(distance_rows(X)):
        acc.add(row)
        for v in VARIANTS:
            out[v][t] = acc.value(v)
    return out


def observation_entropy(
    X: ArrayLike,
    variant: Variant = "kl",
    *,
    min_points: int | None = None,
    bounds: ArrayLike | None = None,
) -> np.ndarray:
    """Observation entropy of every prefix N = 1..T (array of length T).

    ``variant="kl"``: Kozachenko-Leonenko with the k-th nearest *other* point,
    k = max(1, floor(ln(N+1))). Exact duplicates are counted once: the value is
    the estimate on the distinct points seen so far (N and k use their number),
    so re-querying a point leaves OE unchanged instead of sending it to -inf.
    ``variant="reference"``: the authors' code (self counted as a neighbour,
    +1e-10 inside the log, duplicates kept).

    Entry N-1 is NaN when N < ``min_points`` (default d, as the authors skip the
    first d points) or, for "kl", when fewer than k+1 distinct points exist.
    ``bounds`` (2, d) rescales X to the unit cube first.
    """
    _check_variant(variant)
    A = as_points(X, bounds)
    return entropy_all(A, min_points)[variant]
