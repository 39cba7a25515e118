"""Base class every benchmark problem derives from.

A problem is evaluated on the unit cube and always *maximised*: minimisation
problems are negated (``negated = True``). ``to_spec`` / ``from_spec`` give an
exact JSON round-trip so the generation stage can materialise an instance and
later stages re-create it from the file alone.

Factory contract (``registry.register(info, factory)``): a factory is called as
``factory(dim=..., instance_seed=..., **options)`` where ``options`` are the
problem's ``_spec_options()`` plus, only when relevant,

* ``noise_std: float`` -- passed when the saved spec has ``noise_std > 0``;
* ``data_files: dict[str, str] | None`` -- passed by ``load_instance`` /
  ``from_spec`` when the spec has ``data_files``: the same keys that
  ``write_data`` returned, mapped to **absolute** paths of the saved files.
  A factory that generates data (e.g. a synthetic Lasso design) should load it
  from these paths instead of regenerating it.

Noise: with ``noise_std > 0`` ``evaluate`` adds Gaussian noise drawn from a
generator seeded by (instance seed, hash of the point's float64 bytes), so
``evaluate`` stays a pure function: the same point always gets the same noisy
value, whether evaluated alone or inside a batch.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


@dataclass(frozen=True)
class ProblemInfo:
    """Registry entry: what a user sees in ``boexplore problems list``."""

    name: str
    dims: str  # human readable, e.g. "2", "any >= 2", "180"
    source: str  # origin / citation / simulator
    kind: str = "synthetic"  # synthetic | embedded | real-world | finite
    default_dim: int | None = None
    min_dim: int = 1
    max_dim: int | None = None
    has_optimum: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


class Problem:
    """A black-box objective on ``[0,1]^d`` in the maximisation convention.

    Subclasses implement ``_evaluate_unit`` (already validated input) and
    ``_spec_options`` (constructor keyword arguments needed to re-create the
    instance). Problems that need generated data override ``write_data``.
    ``optimizer_unit`` is a known maximiser in the unit cube (shape (d,)) or
    ``None``; plotting and tests use it.
    """

    name: str = ""
    negated: bool = False
    optimizer_unit: np.ndarray | None = None

    def __init__(
        self,
        dim: int,
        bounds: np.ndarray,
        instance_seed: int = 0,
        optimum_value: float | None = None,
        noise_std: float = 0.0,
    ) -> None:
        bounds = np.asarray(bounds, dtype=float)
        if bounds.shape != (2, dim):
            raise ValueError(f"{self.name}: bounds must have shape (2, {dim}), got {bounds.shape}")
        self.dim = int(dim)
        self.bounds = bounds
        self.instance_seed = int(instance_seed)
        self.optimum_value = optimum_value
        self.noise_std = float(noise_std)
        if not np.isfinite(self.noise_std) or self.noise_std < 0:
            raise ValueError(f"{self.name}: noise_std must be >= 0, got {noise_std}")

    # -- evaluation -------------------------------------------------------
    def validate_input(self, X_unit: np.ndarray) -> np.ndarray:
        """Return ``X_unit`` as a float64 (n, d) array or raise a clear ``ValueError``."""
        X = np.asarray(X_unit, dtype=float)
        if X.ndim == 1 and X.shape[0] == self.dim:
            X = X[None, :]
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(
                f"{self.name}: expected points of shape (n, {self.dim}), got {np.shape(X_unit)}"
            )
        if not np.all(np.isfinite(X)):
            raise ValueError(f"{self.name}: input contains NaN or inf")
        tol = 1e-9
        if np.any(X < -tol) or np.any(X > 1 + tol):
            raise ValueError(
                f"{self.name}: inputs must lie in the unit cube [0,1]^{self.dim} "
                f"(got min {X.min():.4g}, max {X.max():.4g})"
            )
        return np.clip(X, 0.0, 1.0)

    def evaluate(self, X_unit: np.ndarray) -> np.ndarray:
        """Objective values (n,) at unit-cube points, maximisation convention.

        Includes observation noise when ``noise_std > 0`` (deterministic per point).
        """
        X = self.validate_input(X_unit)
        y = self._checked_values(X)
        if self.noise_std > 0:
            y = y + self.noise_std * self._point_normals(X)
        return y

    def evaluate_noiseless(self, X_unit: np.ndarray) -> np.ndarray:
        """Noise-free objective values (n,), e.g. for regret of noisy problems."""
        return self._checked_values(self.validate_input(X_unit))

    def _checked_values(self, X: np.ndarray) -> np.ndarray:
        y = np.asarray(self._evaluate_unit(X), dtype=float).reshape(-1)
        if y.shape[0] != X.shape[0]:
            raise RuntimeError(f"{self.name}: returned {y.shape[0]} values for {X.shape[0]} points")
        return y

    def _point_normals(self, X: np.ndarray) -> np.ndarray:
        """One standard normal per row, a pure function of (instance seed, row bytes)."""
        rows = np.ascontiguousarray(X + 0.0, dtype="<f8")  # + 0.0 maps -0.0 to 0.0
        seed = self.instance_seed % 2**63
        out = np.empty(rows.shape[0])
        for i, row in enumerate(rows):
            digest = hashlib.blake2b(row.tobytes(), digest_size=8).digest()
            rng = np.random.default_rng([seed, int.from_bytes(digest, "little")])
            out[i] = rng.standard_normal()
        return out

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def to_original(self, X_unit: np.ndarray) -> np.ndarray:
        """Map unit-cube points to the problem's original box."""
        lo, hi = self.bounds
        return lo + np.asarray(X_unit, dtype=float) * (hi - lo)

    def to_unit(self, X: np.ndarray) -> np.ndarray:
        """Map points of the original box to the unit cube."""
        lo, hi = self.bounds
        return (np.asarray(X, dtype=float) - lo) / (hi - lo)

    # -- serialisation ----------------------------------------------------
    def _spec_options(self) -> dict[str, Any]:
        """Extra constructor options needed to re-create this instance (JSON-able)."""
        return {}

    def write_data(self, directory: Path) -> dict[str, str]:
        """Write generated data files into ``directory``; return {key: file name}.

        Called by ``save_instance`` with a directory reserved for this instance
        (created beforehand, next to the json). Return names relative to
        ``directory``; ``save_instance`` stores them, relative to the json,
        under ``spec["data_files"]``, and ``load_instance`` hands them back to
        the factory as absolute paths through ``data_files=``. Write each file
        atomically (temp file + ``os.replace``).
        """
        return {}

    def to_spec(self) -> dict[str, Any]:
        """JSON-serialisable description that ``from_spec`` turns back into this instance."""
        return {
            "name": self.name,
            "dim": self.dim,
            "instance_seed": self.instance_seed,
            "noise_std": self.noise_std,
            "options": self._spec_options(),
            "negated": self.negated,
            "optimum_value": self.optimum_value,
            "bounds": self.bounds.tolist(),
        }

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(name={self.name!r}, dim={self.dim}, seed={self.instance_seed})"
        )
