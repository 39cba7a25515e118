"""Bounds on the optimal closed tour through each prefix, and an exact solver for tiny sets.

Lower bounds on OPT_t (the shortest closed tour through x_1..x_t), all valid
for t >= 2 and equal to 0 for t = 1:

- ``mst``: weight of a minimum spanning tree (deleting one tour edge leaves a
  spanning path, which weighs at least the MST).
- ``diam``: 2 x the largest pairwise distance (the tour contains two
  edge-disjoint paths between the two farthest points).
- ``nn``: sum over points of the distance to the nearest other point. Valid
  because each point has two tour edges, each at least its nearest-neighbour
  distance: 2 OPT = sum_i (e_i + e_i') >= 2 sum_i nn_i. (The tempting
  2 x sum nn_i is NOT a valid bound: for two points OPT = 2 |x1-x2| = sum nn.)

Upper bound: the heuristic OTSD_t itself, and Psi(d, t) (see ``otsd.psi``).
MSTs of all prefixes are updated incrementally: MST(t+1) is an MST of
MST(t) plus the t new edges, so each step is an O(t log t) sparse problem.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import ArrayLike
from scipy.sparse import csr_array
from scipy.sparse.csgraph import minimum_spanning_tree

from boexplore.metrics.distances import distance_rows
from boexplore.metrics.neighbours import NeighbourState
from boexplore.metrics.validation import as_points

#: Largest instance ``held_karp`` accepts (2^n n^2 work).
HELD_KARP_MAX = 12


class MSTAccumulator:
    """Minimum spanning tree weight of a growing point set (exact duplicates add nothing)."""

    def __init__(self) -> None:
        self.ids: list[int] = []  # point index of each distinct point
        self.u = np.empty(0, dtype=np.int64)  # tree edges, as positions in ``ids``
        self.v = np.empty(0, dtype=np.int64)
        self.w = np.empty(0, dtype=np.float64)
        self.seen = 0
        self.weight = 0.0

    def add(self, dist_row: np.ndarray) -> float:
        """Add point ``self.seen`` given its distances to earlier points; return the MST weight."""
        m = len(self.ids)
        idx = np.asarray(self.ids, dtype=np.int64)
        self.seen += 1
        if m == 0:
            self.ids.append(self.seen - 1)
            return 0.0
        d = dist_row[idx]
        if d.min() == 0.0:  # exact duplicate: same distinct set, same tree
            return self.weight
        self.ids.append(self.seen - 1)
        # CSR graph: tree edges in the rows of their first endpoint, star edges in row m.
        order = np.argsort(self.u, kind="stable")
        indptr = np.zeros(m + 2, dtype=np.int64)
        np.cumsum(np.bincount(self.u, minlength=m + 1), out=indptr[1:])
        indptr[m + 1] = indptr[m] + m
        indices = np.concatenate([self.v[order], np.arange(m, dtype=np.int64)])
        data = np.concatenate([self.w[order], d])
        graph = csr_array((data, indices, indptr), shape=(m + 1, m + 1))
        tree = minimum_spanning_tree(graph, overwrite=True)
        self.u = np.repeat(np.arange(m + 1, dtype=np.int64), np.diff(tree.indptr))
        self.v = tree.indices.astype(np.int64)
        self.w = np.asarray(tree.data, dtype=np.float64)
        self.weight = float(self.w.sum())
        return self.weight


class LowerBoundAccumulator:
    """MST, diameter and nearest-neighbour lower bounds for a growing prefix."""

    def __init__(self, capacity: int = 64) -> None:
        self.mst = MSTAccumulator()
        self.nn = NeighbourState(1, capacity, skip_duplicates=False)
        self.diameter = 0.0
        self.n = 0

    def add(self, dist_row: np.ndarray) -> None:
        """Add the next point given its distances to all earlier points."""
        if self.n:
            self.diameter = max(self.diameter, float(dist_row[: self.n].max()))
        self.mst.add(dist_row)
        self.nn.add(dist_row)
        self.n += 1

    def values(self) -> dict[str, float]:
        """Current bounds: keys ``mst``, ``diam``, ``nn`` and their maximum ``lb``."""
        if self.n < 2:
            return {"mst": 0.0, "diam": 0.0, "nn": 0.0, "lb": 0.0}
        out = {"mst": self.mst.weight, "diam": 2.0 * self.diameter, "nn": self.nn.dist_sum(0)}
        out["lb"] = max(out.values())
        return out


BOUND_KEYS: tuple[str, ...] = ("mst", "diam", "nn", "lb")


def bounds_all(X: np.ndarray) -> dict[str, np.ndarray]:
    """Per-prefix lower bounds (keys of ``BOUND_KEYS``) of validated points ``X``."""
    T = X.shape[0]
    acc = LowerBoundAccumulator(capacity=T)
    out = {k: np.empty(T) for k in BOUND_KEYS}
    for t, row in enumerate(distance_rows(X)):
        acc.add(row)
        for k, val in acc.values().items():
            out[k][t] = val
    return out


def tour_lower_bounds(X: ArrayLike, bounds: ArrayLike | None = None) -> dict[str, np.ndarray]:
    """Lower bounds on the optimal tour of every prefix: arrays ``mst``, ``diam``, ``nn``, ``lb`` (max)."""
    A = as_points(X, bounds)
    return bounds_all(A)


def otsd_lower_bound(X: ArrayLike, bounds: ArrayLike | None = None) -> np.ndarray:
    """Best (largest) of the three lower bounds on the optimal tour, per prefix."""
    return tour_lower_bounds(X, bounds)["lb"]


def mst_weights(X: ArrayLike, bounds: ArrayLike | None = None) -> np.ndarray:
    """Minimum spanning tree weight of every prefix (incremental)."""
    return tour_lower_bounds(X, bounds)["mst"]


def held_karp(X: ArrayLike) -> tuple[float, np.ndarray]:
    """Exact shortest closed tour through the rows of ``X`` (T <= 12) by Held-Karp DP.

    Returns (length, tour) with the tour starting at point 0. O(2^T T^2).
    """
    P = np.asarray(X, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] == 0:
        raise ValueError(f"held_karp: X must be a non-empty 2-D array, got shape {P.shape}")
    return held_karp_distances(np.linalg.norm(P[:, None, :] - P[None, :, :], axis=-1))


def held_karp_distances(D: ArrayLike) -> tuple[float, np.ndarray]:
    """Exact shortest closed tour for a symmetric (n, n) distance matrix ``D`` (n <= 12), any metric.

    Returns (length, tour) with the tour starting at point 0. O(2^n n^2).
    """
    D = np.asarray(D, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] != D.shape[1] or D.shape[0] == 0:
        raise ValueError(f"held_karp: need a non-empty square distance matrix, got {D.shape}")
    n = D.shape[0]
    if n > HELD_KARP_MAX:
        raise ValueError(f"held_karp: at most {HELD_KARP_MAX} points, got {n}")
    if n == 1:
        return 0.0, np.zeros(1, dtype=np.int64)
    m = n - 1  # cities 1..n-1; subsets of them as bitmasks
    full = 1 << m
    cost = np.full((full, m), np.inf)
    parent = np.full((full, m), -1, dtype=np.int64)
    for j in range(m):
        cost[1 << j, j] = D[0, j + 1]
    for size in range(2, m + 1):
        for combo in itertools.combinations(range(m), size):
            mask = sum(1 << j for j in combo)
            for j in combo:
                prev = mask & ~(1 << j)
                cand = cost[prev, :] + D[1:, j + 1]
                i = int(np.argmin(cand))
                cost[mask, j] = cand[i]
                parent[mask, j] = i
    last = cost[full - 1, :] + D[1:, 0]
    j = int(np.argmin(last))
    length = float(last[j])
    order = []
    mask = full - 1
    while j >= 0:
        order.append(j + 1)
        pj = int(parent[mask, j])
        mask &= ~(1 << j)
        j = pj
    return length, np.array([0] + order[::-1], dtype=np.int64)
