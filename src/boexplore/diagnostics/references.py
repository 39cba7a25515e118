"""Calibrated references of the exploration monitor: uniform random points and reference methods.

For a run in dimension d after t evaluations the monitor needs

* the uniform-random reference: median / 10 % / 90 % quantiles of normalised OTSD of t
  i.i.d. uniform points in [0,1]^d and the expected OTSD increment at step t (what one
  random point adds to the tour); simulated with a fixed seed, so any d is available;
* the reference-method spread: quantiles, over the runs of the reference methods of a
  committed release, of the *ratio* normalised OTSD / uniform median at the same (d, t).

The shipped table (``references.csv`` next to this module) is built by the workflow rule
``exploration_references`` from the replicate release (tune-half problems only, see
``analysis.uses`` in config/replicate.yaml) by :func:`boexplore.diagnostics.build.build_references`.
Ratios let a dimension absent from the table borrow the nearest tabulated d (in log d).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from boexplore.metrics.otsd import otsd, psi

#: Quantile levels of the reference-method ratio stored in the table.
QUANTILES: tuple[float, ...] = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
UNIFORM_COLUMNS: tuple[str, ...] = ("u_median", "u_q10", "u_q90", "u_increment")
RATIO_COLUMNS: tuple[str, ...] = tuple(f"r_q{round(100 * q):02d}" for q in QUANTILES)
COLUMNS: tuple[str, ...] = ("d", "t", *UNIFORM_COLUMNS, *RATIO_COLUMNS, "n_runs")
PACKAGE_FILE = "references.csv"
UNIFORM_REPS = 64
UNIFORM_SEED = 0


@lru_cache(maxsize=64)
def uniform_otsd_curves(
    d: int, t_max: int, n_rep: int = UNIFORM_REPS, seed: int = UNIFORM_SEED
) -> np.ndarray:
    """``(4, t_max)``: median, q10, q90 of normalised OTSD and mean OTSD increment, t = 1..t_max.

    ``n_rep`` uniform sequences in [0,1]^d, sequence ``r`` drawn from its own generator
    ``(seed, d, r)``, so values at t do not depend on ``t_max``; the increment at t = 1
    is 0 (a single point has no tour).
    """
    if d < 1 or t_max < 1:
        raise ValueError(f"uniform_otsd_curves: need d >= 1 and t_max >= 1, got {d}, {t_max}")
    runs = np.array(
        [otsd(np.random.default_rng([seed, int(d), r]).random((t_max, d))) for r in range(n_rep)]
    )
    norm = runs / np.asarray(psi(d, np.arange(1, t_max + 1)))
    inc = np.diff(runs, axis=1, prepend=0.0).mean(axis=0)
    med, q10, q90 = np.quantile(norm, [0.5, 0.1, 0.9], axis=0)
    out = np.vstack([med, q10, q90, inc])
    out.setflags(write=False)
    return out


@dataclass
class References:
    """Lookup of the reference table; rows keyed by (d, t).

    ``table`` maps column name -> 1-d array (the CSV's columns). Uniform values for a
    (d, t) outside the table are simulated on the fly; ratio quantiles come from the
    nearest tabulated d in log d, and from the largest tabulated t when t is beyond it.
    """

    table: dict[str, np.ndarray]
    source: str = ""
    _index: dict[int, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        missing = [c for c in COLUMNS if c not in self.table]
        if missing:
            raise ValueError(f"references: missing columns {missing}")
        d = self.table["d"].astype(int)
        for dim in np.unique(d):
            rows = np.flatnonzero(d == dim)
            self._index[int(dim)] = rows[np.argsort(self.table["t"][rows])]

    @property
    def dims(self) -> list[int]:
        """Tabulated dimensions."""
        return sorted(self._index)

    def nearest_dim(self, d: int) -> int:
        """Tabulated dimension closest to ``d`` in log d (ties: the smaller)."""
        if not self._index:
            raise ValueError("references: the table is empty")
        return min(self.dims, key=lambda k: (abs(np.log(k) - np.log(d)), k))

    def _row(self, d: int, t: int) -> int:
        rows = self._index[d]
        ts = self.table["t"][rows]
        return int(rows[min(int(np.searchsorted(ts, t)), len(rows) - 1)])

    def uniform(self, d: int, t: int) -> dict[str, float]:
        """``u_median``, ``u_q10``, ``u_q90`` (normalised OTSD) and ``u_increment`` at (d, t)."""
        if t < 1:
            raise ValueError(f"references: t must be >= 1, got {t}")
        if d in self._index:
            i = self._row(d, t)
            if int(self.table["t"][i]) == t:
                return {c: float(self.table[c][i]) for c in UNIFORM_COLUMNS}
        curves = uniform_otsd_curves(int(d), max(int(t), 8))
        return {c: float(curves[k, t - 1]) for k, c in enumerate(UNIFORM_COLUMNS)}

    def ratio_quantile(self, d: int, t: int, q: float) -> float:
        """Quantile ``q`` (one of :data:`QUANTILES`) of the reference runs' OTSD ratio at (d, t)."""
        col = f"r_q{round(100 * q):02d}"
        if col not in self.table:
            raise ValueError(f"references: quantile {q} not tabulated; choose from {QUANTILES}")
        return float(self.table[col][self._row(self.nearest_dim(d), t)])


def read_references(path: str | Path) -> References:
    """Read a reference CSV (columns :data:`COLUMNS`)."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    table = {c: np.array([float(r[c]) for r in rows]) for c in COLUMNS}
    return References(table, source=str(path))


@lru_cache(maxsize=1)
def load_references() -> References:
    """The references shipped with the package (built from the replicate release)."""
    path = resources.files("boexplore.diagnostics").joinpath(PACKAGE_FILE)
    with resources.as_file(path) as p:
        return read_references(p)
