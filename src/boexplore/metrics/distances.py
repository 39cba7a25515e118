"""Euclidean distances, streamed row by row: D[t, :t] for t = 0..T-1.

Every metric consumes the distances of x_t to the earlier points in
acquisition order, so the full T x T matrix is never stored: rows are made in
blocks into one reused buffer (fresh T^2 allocations are slow on this kind of
machine and cost 128 MB at T = 4000).

- d <= ``DIRECT_MAX_DIM``: accumulated coordinate by coordinate (exact).
- larger d: the Gram identity |a-b|^2 = |a|^2 + |b|^2 - 2 a.b with one BLAS
  product per block. It loses relative accuracy for nearby points
  (cancellation), so pairs whose squared distance is below
  ``REFINE_RELATIVE * 2 max|x|^2`` are recomputed from coordinate
  differences; exact duplicates therefore get exactly 0.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

#: Pairs with ``sq <= REFINE_RELATIVE * 2 * max_i |x_i|^2`` are recomputed directly.
REFINE_RELATIVE = 1e-4
#: Up to this dimension rows are accumulated coordinate by coordinate (exact, no BLAS).
DIRECT_MAX_DIM = 8
_BUFFER_ELEMENTS = 1 << 19


def distances_to(P: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Distances from ``x`` (d,) to each row of ``P`` (n, d), from coordinate differences."""
    diff = P - x
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def distance_rows(X: np.ndarray) -> Iterator[np.ndarray]:
    """Yield ``D[t, :t]`` (distances from x_t to x_0..x_{t-1}) for t = 0..T-1.

    The yielded arrays are views into a reused buffer: consume each before the next.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    T, d = X.shape
    rows = int(min(T, max(16, _BUFFER_ELEMENTS // max(T, 1))))
    buf = np.empty((rows, T))
    direct = d <= DIRECT_MAX_DIM
    if direct:
        tmp = np.empty((rows, T))
    else:
        norms = np.einsum("ij,ij->i", X, X)
        threshold = REFINE_RELATIVE * 2.0 * float(norms.max())
    for s in range(0, T, rows):
        e = min(T, s + rows)
        blk = buf[: e - s, :e]
        if direct:
            blk.fill(0.0)
            diff = tmp[: e - s, :e]
            for k in range(d):
                np.subtract(X[s:e, k, None], X[None, :e, k], out=diff)
                diff *= diff
                blk += diff
        else:
            np.matmul(X[s:e], X[:e].T, out=blk)
            blk *= -2.0
            blk += norms[s:e, None]
            blk += norms[None, :e]
            np.maximum(blk, 0.0, out=blk)
            close = blk <= threshold
            ii, jj = np.nonzero(close)
            keep = jj < ii + s  # strictly earlier points only
            ii, jj = ii[keep], jj[keep]
            if ii.size:
                diff = X[ii + s] - X[jj]
                blk[ii, jj] = np.einsum("ij,ij->i", diff, diff)
        np.sqrt(blk, out=blk)
        for t in range(s, e):
            yield buf[t - s, :t]


def pairwise_distances(X: np.ndarray) -> np.ndarray:
    """Full symmetric (T, T) distance matrix assembled from ``distance_rows`` (tests, small T)."""
    T = np.shape(X)[0]
    D = np.zeros((T, T))
    for t, row in enumerate(distance_rows(X)):
        D[t, :t] = row
        D[:t, t] = row
    return D
