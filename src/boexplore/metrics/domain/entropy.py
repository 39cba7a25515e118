"""OE on a domain: a k-nearest-neighbour entropy estimate with the domain's own ball volumes.

Our extension, no statement of paper 1. The box's Kozachenko-Leonenko estimator weighs each
point by the Lebesgue volume of its k-NN ball, which is not defined on binary or categorical
variables. On a domain we keep the estimator and measure balls with the domain's product
measure: counting measure on the binary / categorical block, Lebesgue measure on the scaled
continuous / integer block. Under the distance of :mod:`boexplore.metrics.domain.distance`
(mismatches + Euclidean), the ball of radius r holds

    V(r) = sum_{j <= r} e_j * V_e * (r - j)^e          (e scaled variables; e = 0: sum_{j<=r} e_j)

where e_j is the number of discrete configurations at exactly j mismatches, the coefficient
of z^j in prod_i (1 + (k_i - 1) z) over the discrete variables with k_i levels, and V_e the
volume of the Euclidean unit ball in R^e. With N distinct points, k = max(1, floor(ln(N+1)))
(the box's schedule), eps_i the distance from x_i to its k-th nearest other point and k_i the
number of other points within eps_i (discrete distances tie, so k_i >= k):

    H_N = psi(N) + (1/N) sum_i [ ln V(eps_i) - psi(k_i) ]

This is the box's ``kl`` estimator exactly when every variable is continuous (V(r) = V_d r^d,
k_i = k). Why not the plug-in estimator (- sum p ln p of the empirical distribution)? With
far fewer points than configurations ({0,1}^30 has 10^9) every point is distinct and the plug-in
value is ln N for any design, a Hamming ball of radius 2 as much as a uniform sample; the k-NN
estimate sees how far apart the points are. Integer variables are measured as the interval
they are scaled to (as a box coordinate would be): an approximation that is good with many
levels. Duplicates are counted once, as on the box (re-querying a point adds no spread).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import digamma

from boexplore.metrics.domain.distance import domain_distance_rows
from boexplore.metrics.domain.spec import parse_domain
from boexplore.metrics.domain.variables import Domain
from boexplore.metrics.entropy import k_schedule, log_unit_ball_volume

#: Distances within this of a point's k-th neighbour distance count as ties.
TIE = 1e-9


class BallVolume:
    """ln V(r), the product-measure volume of a ball of radius r on a domain."""

    def __init__(self, domain: Domain) -> None:
        coeffs = [1]
        for k in domain.levels:  # multiply the polynomial by (1 + (k - 1) z), exact integers
            coeffs = [a + (k - 1) * b for a, b in zip([*coeffs, 0], [0, *coeffs], strict=True)]
        self.log_counts = np.array([math.log(c) for c in coeffs])
        # ln of the Hamming ball sizes sum_{i <= j} e_i (exact integers, then one log each)
        self.log_cumulative = np.array([math.log(c) for c in itertools.accumulate(coeffs)])
        self.e = len(domain.scaled_columns)
        self.log_ve = log_unit_ball_volume(self.e) if self.e else 0.0

    def log_volume(self, r: float) -> float:
        """ln V(r) for r > 0 (see the module docstring)."""
        h = self.log_counts.size - 1
        if self.e == 0:
            return float(self.log_cumulative[min(int(math.floor(r + TIE)), h)])
        j = np.arange(min(int(math.ceil(r)) - 1, h) + 1)
        j = j[r - j > 0]
        terms = self.log_counts[j] + self.log_ve + self.e * np.log(r - j)
        top = terms.max()
        return float(top + math.log(np.exp(terms - top).sum()))


class DomainEntropyAccumulator:
    """The estimator for a growing prefix, from each new point's distances to the earlier ones.

    Keeps the distances between distinct points (O(N^2) memory; a few MB for BO budgets) so that
    a point's k-th neighbour distance and tie count are exact after any insertion.
    """

    def __init__(self, domain: Domain, capacity: int = 64, min_points: int = 1) -> None:
        if int(min_points) != min_points or min_points < 1:
            raise ValueError(f"min_points must be a positive integer, got {min_points!r}")
        self.volume = BallVolume(domain)
        self.min_points = int(min_points)
        cap = max(int(capacity), 2)
        self.D = np.zeros((cap, cap))
        self.eps = np.full(cap, np.inf)
        self.cnt = np.zeros(cap, dtype=np.int64)
        self.logv = np.zeros(cap)
        self.ids: list[int] = []
        self.k = 0
        self.seen = 0

    def _grow(self) -> None:
        cap = 2 * self.D.shape[0]
        D = np.zeros((cap, cap))
        D[: self.D.shape[0], : self.D.shape[0]] = self.D
        self.D = D
        self.eps = np.concatenate([self.eps, np.full(cap - self.eps.size, np.inf)])
        self.cnt = np.concatenate([self.cnt, np.zeros(cap - self.cnt.size, dtype=np.int64)])
        self.logv = np.concatenate([self.logv, np.zeros(cap - self.logv.size)])

    def _refresh(self, i: int, m: int) -> None:
        """k-th neighbour distance, tie count and ln V of distinct point i among the first m."""
        others = np.concatenate([self.D[i, :i], self.D[i, i + 1 : m]])
        if others.size < self.k:
            self.eps[i], self.cnt[i] = np.inf, 0
            return
        eps = float(np.partition(others, self.k - 1)[self.k - 1])
        self.eps[i] = eps
        self.cnt[i] = int(np.count_nonzero(others <= eps + TIE))
        self.logv[i] = self.volume.log_volume(eps)

    def add(self, dist_row: np.ndarray) -> bool:
        """Offer the next point (distances to every earlier point); False for a duplicate."""
        m = len(self.ids)
        d = np.asarray(dist_row)[self.ids]
        self.seen += 1
        if m and d.min() == 0.0:
            return False
        if m + 1 > self.D.shape[0]:
            self._grow()
        self.D[m, :m] = d
        self.D[:m, m] = d
        self.ids.append(self.seen - 1)
        m += 1
        k = k_schedule(m)
        if k != self.k:
            self.k = k
            changed = np.arange(m - 1)
        else:
            old = self.eps[: m - 1]
            tie = np.abs(d - old) <= TIE
            self.cnt[: m - 1][tie] += 1
            changed = np.flatnonzero(d < old - TIE)
        for i in changed:
            self._refresh(int(i), m)
        self._refresh(m - 1, m)
        return True

    @property
    def distinct(self) -> int:
        """Number of distinct points seen."""
        return len(self.ids)

    def value(self) -> float:
        """The estimate for the current prefix; NaN below 2 distinct points or ``min_points``."""
        m = len(self.ids)
        if m < 2 or self.seen < self.min_points:
            return math.nan
        return float(digamma(m) + (self.logv[:m].sum() - digamma(self.cnt[:m]).sum()) / m)


def domain_entropy(X: ArrayLike, domain: Domain | str, *, min_points: int = 1) -> np.ndarray:
    """OE of every prefix N = 1 .. T of raw points ``X`` on ``domain`` (NaN where undefined)."""
    dom = parse_domain(domain)
    P = dom.encode(X)
    acc = DomainEntropyAccumulator(dom, capacity=len(P), min_points=min_points)
    out = np.empty(len(P))
    for t, row in enumerate(domain_distance_rows(P)):
        acc.add(row)
        out[t] = acc.value()
    return out
