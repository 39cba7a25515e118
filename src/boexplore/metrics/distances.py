"""Euclidean distances: a BLAS full matrix for batch metrics, exact rows for the tracker.

The batch path uses the Gram identity ``|a-b|^2 = |a|^2 + |b|^2 - 2 a.b`` (one
matrix product, fast in high d). It loses relative accuracy for nearby points
(cancellation), so pairs whose squared distance is small relative to their
norms are recomputed from coordinate differences; exact duplicates therefore
get exactly 0 and the diagonal is exactly 0.
"""

from __future__ import annotations

import numpy as np

#: Pairs with ``sq <= REFINE_RELATIVE * (|a|^2 + |b|^2)`` are recomputed directly.
REFINE_RELATIVE = 1e-4
_CHUNK = 1 << 16


def distances_to(P: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Distances from ``x`` (d,) to each row of ``P`` (n, d), from coordinate differences."""
    diff = P - x
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def pairwise_distances(X: np.ndarray) -> np.ndarray:
    """Full (T, T) float64 distance matrix of the rows of ``X``.

    Symmetric up to one rounding step for well-separated pairs (refined pairs and
    the zero diagonal are exactly symmetric); callers read row ``t`` up to column t.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    T = X.shape[0]
    norms = np.einsum("ij,ij->i", X, X)
    sq = X @ X.T  # numpy dispatches A @ A.T to BLAS syrk
    sq *= -2.0
    sq += norms[:, None]
    sq += norms[None, :]
    np.maximum(sq, 0.0, out=sq)
    sq[np.diag_indices(T)] = np.inf  # keep the diagonal out of the refinement mask
    # Refine nearby pairs from coordinate differences (absolute Gram error ~ eps * max norm).
    close = sq <= REFINE_RELATIVE * 2.0 * float(norms.max())
    if close.any():
        ii, jj = np.nonzero(close)
        keep = ii < jj
        ii, jj = ii[keep], jj[keep]
        for s in range(0, ii.size, _CHUNK):
            a, b = ii[s : s + _CHUNK], jj[s : s + _CHUNK]
            diff = X[a] - X[b]
            v = np.einsum("ij,ij->i", diff, diff)
            sq[a, b] = v
            sq[b, a] = v
    del close
    sq[np.diag_indices(T)] = 0.0
    np.sqrt(sq, out=sq)
    return sq
