"""Incremental k-nearest-neighbour distances of a growing point set.

Each tracked point keeps its K smallest distances to the *other* tracked
points, sorted. A new point needs its distances to the earlier points (O(t));
only the few earlier points for which it is among their K nearest change, so
the update is O(t) plus O(K log K) per changed point. With
``skip_duplicates`` an exact repeat of an earlier point is not tracked (the
set is the distinct points seen so far).
"""

from __future__ import annotations

import numpy as np


class NeighbourState:
    """K smallest distances to other points, for every tracked point (stored (K, capacity))."""

    def __init__(
        self, K: int, capacity: int = 64, *, skip_duplicates: bool, log_offset: float = 0.0
    ) -> None:
        self.K = int(K)
        self.skip_duplicates = skip_duplicates
        self.log_offset = float(log_offset)
        cap = max(int(capacity), 1)
        self.knn = np.full((self.K, cap), np.inf)
        self.logs = np.full((self.K, cap), np.inf)  # log(knn + log_offset)
        self.ids = np.empty(cap, dtype=np.int64)  # point index of each tracked slot
        self.count = 0  # tracked points
        self.seen = 0  # points offered (tracked or not)

    def _grow(self) -> None:
        cap = 2 * self.ids.size
        pad = np.full((self.K, cap - self.ids.size), np.inf)
        self.knn = np.hstack([self.knn, pad])
        self.logs = np.hstack([self.logs, pad.copy()])
        self.ids = np.resize(self.ids, cap)

    def add(self, dist_row: np.ndarray) -> bool:
        """Offer point ``self.seen`` with distances to points 0..seen-1; return whether it is tracked."""
        m = self.count
        if self.skip_duplicates:
            # While nothing was skipped, tracked slots are points 0..m-1: slice, don't gather.
            d = dist_row[:m] if m == self.seen else dist_row[self.ids[:m]]
            if m and d.min() == 0.0:
                self.seen += 1
                return False
        else:
            d = dist_row[:m]
        if m + 1 > self.ids.size:
            self._grow()
        K = self.K
        knn, logs = self.knn, self.logs
        if m:
            own = np.partition(d, K - 1)[:K] if m > K else d.copy()
            own.sort()
            knn[: own.size, m] = own
            with np.errstate(divide="ignore"):
                logs[: own.size, m] = np.log(own + self.log_offset)
            changed = np.flatnonzero(d < knn[K - 1, :m])
            if changed.size:
                block = np.empty((K + 1, changed.size))
                block[:K] = knn[:, changed]
                block[K] = d[changed]
                block.sort(axis=0)
                knn[:, changed] = block[:K]
                with np.errstate(divide="ignore"):
                    logs[:, changed] = np.log(block[:K] + self.log_offset)
        self.ids[m] = self.seen
        self.count = m + 1
        self.seen += 1
        return True

    def log_sum(self, column: int) -> float:
        """Sum over tracked points of log(j-th nearest other distance + log_offset), j = column + 1."""
        return float(self.logs[column, : self.count].sum())

    def dist_sum(self, column: int) -> float:
        """Sum over tracked points of their (column + 1)-th nearest other distance."""
        return float(self.knn[column, : self.count].sum())
