"""Chronological cheapest-insertion tour, the engine behind OTSD.

The closed tour is stored as two arrays in walk order starting at x_1:
``nodes[i]`` and ``edges[i] = |nodes[i] - nodes[i+1 mod m]|``. Inserting
point t costs one vectorised pass over the m = t-1 edges (O(t) given the
distances from x_t to the earlier points).
"""

from __future__ import annotations

import numpy as np

#: Insertion costs within ``TIE_TOLERANCE * sqrt(d)`` of the minimum count as tied;
#: ties go to the earliest edge when the tour is walked from x_1. The tolerance
#: absorbs float64 rounding (so the batch and the incremental tracker agree on
#: ties such as repeated points or symmetric configurations).
TIE_TOLERANCE = 1e-10


class TourBuilder:
    """Incremental closed tour; ``add`` inserts the next point by cheapest insertion."""

    def __init__(self, d: int, capacity: int = 64) -> None:
        self.tol = TIE_TOLERANCE * float(np.sqrt(d))
        cap = max(capacity, 1) + 1
        # nodes[size] is a sentinel copy of x_1 that closes the walk.
        self.nodes = np.zeros(cap, dtype=np.int64)
        self.edges = np.zeros(cap, dtype=np.float64)
        self._dist = np.empty(cap, dtype=np.float64)
        self.size = 0
        self.length = 0.0

    def _grow(self) -> None:
        cap = 2 * self.nodes.size
        self.nodes = np.resize(self.nodes, cap)
        self.edges = np.resize(self.edges, cap)
        self._dist = np.empty(cap, dtype=np.float64)

    def add(self, dist_row: np.ndarray) -> float:
        """Insert point ``self.size`` given its distances to points 0..size-1; return the tour length."""
        m = self.size
        if m + 2 > self.nodes.size:
            self._grow()
        if m == 0:
            self.nodes[:2] = 0
            self.edges[0] = 0.0
            self.size = 1
            return 0.0
        nodes, edges = self.nodes, self.edges
        # a[i] = distance from the new point to the i-th node of the walk (a[m] = x_1 again).
        a = self._dist[: m + 1]
        np.take(dist_row, nodes[: m + 1], out=a)
        cost = a[:-1] + a[1:]
        cost -= edges[:m]
        i = int(cost.argmin())
        if i:
            # Ties (within rounding tolerance) go to the earliest edge of the walk.
            i = int(np.argmax(cost[: i + 1] <= cost[i] + self.tol))
        # Insert the new node between walk positions i and i+1 (shifting the sentinel too).
        nodes[i + 2 : m + 2] = nodes[i + 1 : m + 1]
        edges[i + 2 : m + 1] = edges[i + 1 : m]
        nodes[i + 1] = m
        edges[i] = a[i]
        edges[i + 1] = a[i + 1]
        self.size = m + 1
        self.length += max(float(cost[i]), 0.0)
        return self.length

    def tour(self) -> np.ndarray:
        """Node indices in walk order starting at x_1 (the closing edge back to x_1 is implicit)."""
        return self.nodes[: self.size].copy()
