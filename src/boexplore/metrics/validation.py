"""Input checks shared by every metric: shape, finiteness and the unit cube."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

#: Values this far outside [0, 1] (rounding from rescaling) are clipped, not rejected.
CUBE_TOLERANCE = 1e-9


def as_bounds(bounds: ArrayLike, d: int) -> np.ndarray:
    """Return ``bounds`` as a float64 (2, d) array with ``lower < upper``."""
    b = np.asarray(bounds, dtype=np.float64)
    if b.shape != (2, d):
        raise ValueError(f"bounds must have shape (2, {d}) (lower row, upper row), got {b.shape}")
    if not np.all(np.isfinite(b)):
        raise ValueError("bounds contain NaN or inf")
    if np.any(b[1] <= b[0]):
        bad = int(np.flatnonzero(b[1] <= b[0])[0])
        raise ValueError(f"bounds: upper <= lower in dimension {bad}")
    return b


def as_points(X: ArrayLike, bounds: ArrayLike | None = None, *, name: str = "X") -> np.ndarray:
    """Validate observations and return them as a C-contiguous float64 (T, d) array in [0,1]^d.

    ``X`` must be 2-D (rows = points in acquisition order), non-empty and finite.
    With ``bounds`` (shape (2, d): lower, upper) the points are first mapped to
    the unit cube; otherwise they must already lie in it (up to ``CUBE_TOLERANCE``).
    """
    try:
        A = np.array(X, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array: {exc}") from exc
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D with shape (T, d); got {A.ndim}-D array of shape {A.shape}"
        )
    T, d = A.shape
    if T == 0:
        raise ValueError(f"{name} has no points (T = 0)")
    if d == 0:
        raise ValueError(f"{name} has zero dimensions (d = 0)")
    if not np.all(np.isfinite(A)):
        row = int(np.flatnonzero(~np.all(np.isfinite(A), axis=1))[0])
        raise ValueError(f"{name} contains NaN or inf (first in row {row})")
    if bounds is not None:
        b = as_bounds(bounds, d)
        A = (A - b[0]) / (b[1] - b[0])
    lo, hi = A.min(), A.max()
    if lo < -CUBE_TOLERANCE or hi > 1.0 + CUBE_TOLERANCE:
        row = int(
            np.flatnonzero(np.any((A < -CUBE_TOLERANCE) | (A > 1 + CUBE_TOLERANCE), axis=1))[0]
        )
        hint = "" if bounds is not None else "; pass bounds=(2, d) array to rescale"
        raise ValueError(
            f"{name} has points outside the unit cube [0, 1]^d (first in row {row}, "
            f"range [{lo:.6g}, {hi:.6g}]){hint}"
        )
    np.clip(A, 0.0, 1.0, out=A)
    return np.ascontiguousarray(A)
