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
        self.nodes = np.empty(max(capacity, 1), dtype=np.int64)
        self.edges = np.empty(max(capacity, 1), dtype=np.float64)
        self.size = 0
        self.length = 0.0

    def _grow(self) -> None:
        cap = 2 * self.nodes.size
        self.nodes = np.resize(self.nodes, cap)
        self.edges = np.resize(self.edges, cap)

    def add(self, dist_row: np.ndarray) -> float:
        """Insert point ``self.size`` given its distances to points 0..size-1; return the tour length."""
        m = self.size
        if m + 1 > self.nodes.size:
            self._grow()
        if m == 0:
            self.nodes[0] = 0
            self.edges[0] = 0.0
            self.size = 1
            return 0.0
        nodes, edges = self.nodes, self.edges
        a = dist_row[nodes[:m]]  # distance to the start of each edge
        b = np.empty_like(a)  # distance to the end of each edge
        b[:-1] = a[1:]
        b[-1] = a[0]
        cost = a + b
        cost -= edges[:m]
        lowest = cost.min()
        i = int(np.argmax(cost <= lowest + self.tol))
        # Insert the new node between positions i and i+1 (i+1 == m wraps to x_1).
        nodes[i + 2 : m + 1] = nodes[i + 1 : m]
        edges[i + 2 : m + 1] = edges[i + 1 : m]
        nodes[i + 1] = m
        edges[i] = a[i]
        edges[i + 1] = b[i]
        self.size = m + 1
        self.length += max(float(cost[i]), 0.0)
        return self.length

    def tour(self) -> np.ndarray:
        """Node indices in walk order starting at x_1 (the closing edge back to x_1 is implicit)."""
        return self.nodes[: self.size].copy()
