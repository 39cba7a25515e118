"""A run's state (what a checkpoint stores) and the randomness it starts from.

Below the loop (``bo/loop.py``) and the trace extension (``bo/extend.py``), which both build
a ``RunState``: randomness depends only on (seed, iteration), and the initial design is the
scrambled Sobol sequence seeded with the run's seed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch.quasirandom import SobolEngine

DTYPE = torch.float64


def iteration_seed(seed: int, iteration: int) -> np.random.SeedSequence:
    """Seed sequence for one iteration: randomness depends only on (seed, iteration)."""
    return np.random.SeedSequence([int(seed), int(iteration)])


def impute_nan(y: np.ndarray) -> np.ndarray:
    """Replace non-finite values by the worst finite one (0 when none is finite)."""
    y = np.asarray(y, dtype=float)
    finite = np.isfinite(y)
    fill = float(y[finite].min()) if finite.any() else 0.0
    return np.where(finite, y, fill)


def sobol_unit(dim: int, seed: int, start: int, n: int) -> np.ndarray:
    """Points ``start .. start+n-1`` of the scrambled Sobol sequence seeded with ``seed``."""
    engine = SobolEngine(dim, scramble=True, seed=int(seed))
    if start:
        engine.fast_forward(start)
    return engine.draw(n, dtype=DTYPE).numpy()


class RunState:
    """Observed data and bookkeeping of one run (what a checkpoint stores)."""

    def __init__(self, dim: int) -> None:
        self.X = np.zeros((0, dim))
        self.y = np.zeros(0)
        self.iteration: list[int] = []
        self.batch_index: list[int] = []
        self.fit_seconds: list[float] = []
        self.acq_seconds: list[float] = []
        self.fallback: list[str] = []
        self.tr_length: list[float] = []
        self.raasp_n_perturbed: list[float] = []
        self.last_iteration = -1
        self.tr: dict | None = None
        self.warm: dict[str, np.ndarray] | None = None
        self.kg_tree: np.ndarray | None = None  # qKG one-shot solution (kg_warm_start)

    def append(
        self,
        X: np.ndarray,
        y: np.ndarray,
        it: int,
        fit_s: float,
        acq_s: float,
        flag: str,
        tr_length: float = math.nan,
        raasp_n_perturbed: float = math.nan,
    ) -> None:
        self.X = np.vstack([self.X, X])
        self.y = np.concatenate([self.y, y])
        for b in range(len(y)):
            self.iteration.append(it)
            self.batch_index.append(b)
            self.fit_seconds.append(fit_s)
            self.acq_seconds.append(acq_s)
            self.fallback.append(flag)
            self.tr_length.append(tr_length)
            self.raasp_n_perturbed.append(raasp_n_perturbed)
        self.last_iteration = it

    _COLUMNS = ("iteration", "batch_index", "fit_seconds", "acq_seconds", "tr_length")
    _COLUMNS += ("raasp_n_perturbed",)

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(arrays, JSON-able scalars) for a checkpoint; exact (float64, JSON floats)."""
        arrays = {"X": self.X, "y": self.y, "fallback": np.asarray(self.fallback, dtype=str)}
        arrays.update({k: np.asarray(getattr(self, k)) for k in self._COLUMNS})
        warm = self.warm or {}
        arrays.update({f"warm.{k}": np.asarray(v) for k, v in warm.items()})
        scalars = {
            "last_iteration": self.last_iteration,
            "tr": self.tr,
            "warm": None if self.warm is None else sorted(warm),
        }
        if self.kg_tree is not None:  # only warm-started qKG runs carry it
            arrays["kg_tree"] = np.asarray(self.kg_tree)
            scalars["kg_tree"] = True
        return arrays, scalars

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], scalars: dict[str, Any]) -> RunState:
        """Inverse of ``to_arrays``; ValueError when the arrays do not fit together."""
        X, y = np.asarray(arrays["X"], dtype=float), np.asarray(arrays["y"], dtype=float)
        out = cls(X.shape[1] if X.ndim == 2 else 0)
        out.X, out.y = X, y
        out.fallback = [str(v) for v in arrays["fallback"]]
        for k in cls._COLUMNS:
            setattr(out, k, arrays[k].tolist())
        lengths = {len(getattr(out, k)) for k in ("y", "fallback", *cls._COLUMNS)}
        if X.ndim != 2 or lengths != {X.shape[0]}:
            raise ValueError("checkpoint arrays have inconsistent lengths")
        out.last_iteration = int(scalars["last_iteration"])
        out.tr = scalars["tr"]
        names = scalars["warm"]
        out.warm = None if names is None else {k: arrays[f"warm.{k}"] for k in names}
        out.kg_tree = np.asarray(arrays["kg_tree"]) if scalars.get("kg_tree") else None
        return out

    def batch_sizes(self) -> list[int]:
        """Evaluations per BO iteration (iterations >= 1), in order."""
        its = np.asarray(self.iteration, dtype=np.int64)
        return np.bincount(its[its > 0])[1:].tolist() if its.size else []
