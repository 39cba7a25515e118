"""ExplorationTracker: OTSD, OE and tour bounds updated point by point inside a BO loop.

Each new point costs O(t d) for its distances to the t earlier points, O(t)
for the tour insertion and O(t) (plus a few O(K log K) list updates) for the
k-NN entropy state. The numbers equal the batch functions' (same algorithms,
same tie rule; distances agree to rounding).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from boexplore.metrics.bounds import LowerBoundAccumulator
from boexplore.metrics.distances import distances_to
from boexplore.metrics.entropy import EntropyAccumulator, k_schedule
from boexplore.metrics.otsd import psi
from boexplore.metrics.tour import TourBuilder
from boexplore.metrics.validation import as_bounds, as_points

_HISTORY = ("otsd", "otsd_normalized", "psi", "oe_kl", "oe_ref")


class ExplorationTracker:
    """Incremental exploration metrics of a growing sequence of observations in [0,1]^d.

    ``update(x)`` accepts one point (d,) or several (n, d) in acquisition order.
    With ``bounds`` (2, d) points are rescaled to the unit cube first. With
    ``track_bounds`` the MST / diameter / nearest-neighbour tour lower bounds
    are kept too (the MST step is O(t log t)). ``k_max`` is the neighbour-list
    length kept for OE (8 covers N <= 8102; longer runs trigger a one-off rebuild).
    """

    def __init__(
        self,
        d: int,
        *,
        bounds: ArrayLike | None = None,
        min_points: int | None = None,
        track_bounds: bool = False,
        capacity: int = 256,
        k_max: int = 8,
    ) -> None:
        if int(d) != d or d < 1:
            raise ValueError(f"ExplorationTracker: d must be a positive integer, got {d!r}")
        self.d = int(d)
        self.bounds = None if bounds is None else as_bounds(bounds, self.d)
        self._min_points = min_points
        self._points = np.empty((max(capacity, 1), self.d))
        self._n = 0
        self._tour = TourBuilder(self.d, capacity)
        self._oe = EntropyAccumulator(self.d, capacity, k_max=k_max, min_points=min_points)
        self._lb = LowerBoundAccumulator(capacity) if track_bounds else None
        self._hist: dict[str, list[float]] = {k: [] for k in _HISTORY}
        self._lb_hist: dict[str, list[float]] = {k: [] for k in ("mst", "diam", "nn", "lb")}

    def __len__(self) -> int:
        return self._n

    def update(self, x: ArrayLike) -> ExplorationTracker:
        """Add one point (shape (d,)) or several (shape (n, d)); returns self."""
        arr = np.asarray(x, dtype=np.float64)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[1] != self.d:
            raise ValueError(
                f"update: expected a point of shape ({self.d},) or (n, {self.d}), got {np.shape(x)}"
            )
        P = as_points(arr, self.bounds, name="x")
        for row in P:
            self._add(row)
        return self

    def _add(self, x: np.ndarray) -> None:
        n = self._n
        if n + 1 > self._points.shape[0]:
            self._points = np.vstack([self._points, np.empty_like(self._points)])
        if self._oe.needs_rebuild():
            self._rebuild_entropy(k_schedule(2 * (n + 1)))
        dist = distances_to(self._points[:n], x)
        self._points[n] = x
        self._n = n + 1
        length = self._tour.add(dist)
        self._oe.add(dist)
        p = psi(self.d, self._n)
        h = self._hist
        h["otsd"].append(length)
        h["psi"].append(p)
        h["otsd_normalized"].append(length / p)
        h["oe_kl"].append(self._oe.value("kl"))
        h["oe_ref"].append(self._oe.value("reference"))
        if self._lb is not None:
            self._lb.add(dist)
            for k, v in self._lb.values().items():
                self._lb_hist[k].append(v)

    def _rebuild_entropy(self, k_max: int) -> None:
        """Recreate the k-NN state with longer neighbour lists (needed as k grows with N)."""
        acc = EntropyAccumulator(
            self.d, self._points.shape[0], k_max=k_max, min_points=self._min_points
        )
        for i in range(self._n):
            acc.add(distances_to(self._points[:i], self._points[i]))
        self._oe = acc

    # ---- current values -------------------------------------------------------------
    def _last(self, key: str) -> float:
        if not self._n:
            raise ValueError("ExplorationTracker has no points yet")
        return self._hist[key][-1]

    @property
    def points(self) -> np.ndarray:
        """Points seen so far (unit cube), shape (t, d)."""
        return self._points[: self._n].copy()

    @property
    def otsd(self) -> float:
        """OTSD of all points so far."""
        return self._last("otsd")

    @property
    def otsd_normalized(self) -> float:
        """OTSD / Psi(d, t)."""
        return self._last("otsd_normalized")

    @property
    def entropy(self) -> float:
        """OE (textbook KL variant) of all points so far; NaN while undefined."""
        return self._last("oe_kl")

    @property
    def entropy_reference(self) -> float:
        """OE in the authors' reference variant."""
        return self._last("oe_ref")

    @property
    def tour(self) -> np.ndarray:
        """Current tour (point indices in walk order from x_1)."""
        return self._tour.tour()

    @property
    def lower_bound(self) -> float:
        """Best lower bound on the optimal tour (needs ``track_bounds=True``)."""
        if self._lb is None:
            raise ValueError(
                "lower bounds are not tracked; create the tracker with track_bounds=True"
            )
        if not self._n:
            raise ValueError("ExplorationTracker has no points yet")
        return self._lb_hist["lb"][-1]

    # ---- histories (one entry per prefix, like the batch functions) -----------------
    @property
    def otsd_history(self) -> np.ndarray:
        return np.asarray(self._hist["otsd"])

    @property
    def otsd_normalized_history(self) -> np.ndarray:
        return np.asarray(self._hist["otsd_normalized"])

    @property
    def psi_history(self) -> np.ndarray:
        return np.asarray(self._hist["psi"])

    @property
    def entropy_history(self) -> np.ndarray:
        return np.asarray(self._hist["oe_kl"])

    @property
    def entropy_reference_history(self) -> np.ndarray:
        return np.asarray(self._hist["oe_ref"])

    def lower_bound_history(self) -> dict[str, np.ndarray]:
        """Per-prefix bounds ``mst``, ``diam``, ``nn``, ``lb`` (needs ``track_bounds=True``)."""
        if self._lb is None:
            raise ValueError(
                "lower bounds are not tracked; create the tracker with track_bounds=True"
            )
        return {k: np.asarray(v) for k, v in self._lb_hist.items()}
