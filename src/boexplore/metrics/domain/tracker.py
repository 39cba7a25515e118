"""DomainExplorationTracker: OTSD, OE and tour bounds on a domain, updated point by point.

The incremental twin of :func:`boexplore.metrics.domain.scoring.domain_metrics_table` (same
accumulators fed the same distances, so the numbers are equal): O(t w) per point for its
distances to the t earlier points (w variables), O(t) for the tour insertion.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from boexplore.metrics.domain.bounds import DomainBoundAccumulator
from boexplore.metrics.domain.distance import distances_to_point
from boexplore.metrics.domain.entropy import DomainEntropyAccumulator
from boexplore.metrics.domain.spec import parse_domain
from boexplore.metrics.domain.variables import Domain, DomainPoints
from boexplore.metrics.tour import TourBuilder


class DomainExplorationTracker:
    """Exploration metrics of a growing sequence of raw points on a domain.

    ``update(x)`` takes one point (width,) or several (n, width) in acquisition order; values
    that do not fit the domain raise :class:`~boexplore.metrics.domain.variables.DomainError`.
    """

    def __init__(self, domain: Domain | str, capacity: int = 256) -> None:
        self.domain = parse_domain(domain)
        cap = max(int(capacity), 1)
        w = self.domain.width
        self._codes = np.empty((cap, len(self.domain.levels)), dtype=np.int64)
        self._scaled = np.empty((cap, len(self.domain.scaled_columns)))
        self._n = 0
        self._tour = TourBuilder(w, cap)
        self._oe = DomainEntropyAccumulator(self.domain, cap)
        self._bounds = DomainBoundAccumulator(self.domain, cap)
        self._hist: dict[str, list[float]] = {"otsd": [], "oe": [], "lb": [], "ub_tour": []}

    def __len__(self) -> int:
        return self._n

    def update(self, x: ArrayLike) -> DomainExplorationTracker:
        """Add one point or several; returns self."""
        arr = np.asarray(x, dtype=np.float64)
        P = self.domain.encode(arr[None, :] if arr.ndim == 1 else arr, name="x")
        for i in range(len(P)):
            self._add(P.codes[i], P.scaled[i])
        return self

    def _add(self, code: np.ndarray, scaled: np.ndarray) -> None:
        n = self._n
        if n + 1 > self._codes.shape[0]:
            self._codes = np.vstack([self._codes, np.empty_like(self._codes)])
            self._scaled = np.vstack([self._scaled, np.empty_like(self._scaled)])
        self._codes[n], self._scaled[n] = code, scaled
        dist = distances_to_point(DomainPoints(self._codes, self._scaled), n, n)
        self._n = n + 1
        self._hist["otsd"].append(self._tour.add(dist))
        self._oe.add(dist)
        self._bounds.add(dist)
        self._hist["oe"].append(self._oe.value())
        values = self._bounds.values()
        self._hist["lb"].append(values["lb"])
        self._hist["ub_tour"].append(values["ub_tour"])

    def _last(self, key: str) -> float:
        if not self._n:
            raise ValueError("DomainExplorationTracker has no points yet")
        return self._hist[key][-1]

    @property
    def otsd(self) -> float:
        """OTSD of all points so far."""
        return self._last("otsd")

    @property
    def entropy(self) -> float:
        """OE (domain k-NN estimator) of all points so far; NaN while undefined."""
        return self._last("oe")

    @property
    def lower_bound(self) -> float:
        """Largest lower bound on the optimal tour so far."""
        return self._last("lb")

    @property
    def upper_bound(self) -> float:
        """t x diameter, an upper bound on OTSD."""
        return self._last("ub_tour")

    @property
    def tour(self) -> np.ndarray:
        """Current tour (point indices in walk order from x_1)."""
        return self._tour.tour()

    def history(self) -> dict[str, np.ndarray]:
        """Per-prefix ``otsd``, ``oe``, ``lb`` and ``ub_tour``."""
        return {k: np.asarray(v) for k, v in self._hist.items()}
