"""Problems on binary, categorical and mixed domains (our extension, not paper 1's setting).

A :class:`CombinatorialProblem` is a :class:`~boexplore.problems.base.Problem` whose natural
inputs are **raw domain values**: a level code 0 .. k-1 per binary / categorical variable
(binary: k = 2) and a real in [lower, upper] per continuous one. ``evaluate_raw`` takes those;
``domain_spec`` is the compact description that ``boexplore.metrics.domain.parse_domain`` reads
(``binary*50,continuous*3``), so traces of raw values are scored on their own domain.

The unit-cube contract of every problem still holds (``evaluate(X_unit)``): a unit coordinate u
of a k-level variable is the level ``min(floor(k u), k - 1)`` (k equal cells), a continuous one
is ``lower + u (upper - lower)``. A continuous BO method run on such a problem therefore
optimises the relaxation that rounds to cells; ``raw_to_unit`` maps a level to its cell centre.
All problems are maximised; minimisation problems are negated (``negated = True``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boexplore.problems.base import Problem

#: A raw level code within this of an integer counts as that integer.
CODE_TOLERANCE = 1e-9


class CombinatorialProblem(Problem):
    """A problem on a product of finite (binary / categorical) and continuous variables.

    ``levels[j]`` is the number of levels of variable j, or ``None`` for a continuous variable
    with range ``bounds[:, j]``. Subclasses implement ``_evaluate_raw`` on validated raw values
    (float64 array (n, d), codes as whole numbers). ``optimizer_raw`` is a known maximiser in
    raw values or ``None``; ``best_known`` a best value found (maximisation convention) where
    no optimum is proven, with its provenance in the class docstring.
    """

    optimizer_raw: np.ndarray | None = None
    best_known: float | None = None

    def __init__(
        self,
        dim: int,
        levels: Sequence[int | None],
        instance_seed: int = 0,
        optimum_value: float | None = None,
        continuous_bounds: tuple[float, float] = (0.0, 1.0),
    ) -> None:
        levels = tuple(None if k is None else int(k) for k in levels)
        if len(levels) != dim:
            raise ValueError(f"{self.name}: {len(levels)} level counts for dim {dim}")
        if any(k is not None and k < 2 for k in levels):
            raise ValueError(f"{self.name}: a finite variable needs at least 2 levels")
        lo, hi = (float(b) for b in continuous_bounds)
        bounds = np.array(
            [[0.0 if k else lo for k in levels], [k - 1.0 if k else hi for k in levels]]
        )
        super().__init__(dim, bounds, instance_seed=instance_seed, optimum_value=optimum_value)
        self.levels = levels
        self._finite = np.array([k is not None for k in levels])
        self._k = np.array([k or 1 for k in levels], dtype=float)

    # -- the domain ---------------------------------------------------------------------------
    @property
    def domain_spec(self) -> str:
        """Compact domain description for ``metrics.domain.parse_domain``."""
        tokens = []
        for j, k in enumerate(self.levels):
            if k == 2:
                tokens.append("binary")
            elif k is not None:
                tokens.append(f"categorical({k})")
            else:
                lo, hi = self.bounds[:, j]
                tokens.append(f"continuous({lo:g},{hi:g})")
        parts: list[str] = []
        for tok in tokens:
            if parts and parts[-1].split("*")[0] == tok:
                head, _, n = parts[-1].partition("*")
                parts[-1] = f"{head}*{int(n or 1) + 1}"
            else:
                parts.append(tok)
        return ",".join(parts)

    @property
    def finite_columns(self) -> np.ndarray:
        """Indices of the binary / categorical variables."""
        return np.flatnonzero(self._finite)

    @property
    def continuous_columns(self) -> np.ndarray:
        """Indices of the continuous variables."""
        return np.flatnonzero(~self._finite)

    def unit_to_raw(self, X_unit: np.ndarray) -> np.ndarray:
        """Raw values of unit-cube points: k equal cells per finite variable, affine otherwise."""
        U = np.asarray(X_unit, dtype=float)
        lo, hi = self.bounds
        cells = np.minimum(np.floor(U * self._k), self._k - 1)
        return np.where(self._finite, cells, lo + U * (hi - lo))

    def raw_to_unit(self, X_raw: np.ndarray) -> np.ndarray:
        """Unit-cube points of raw values: a level's cell centre, affine otherwise."""
        R = np.asarray(X_raw, dtype=float)
        lo, hi = self.bounds
        return np.where(self._finite, (R + 0.5) / self._k, (R - lo) / (hi - lo))

    def sample_raw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` uniform points of the domain in raw values."""
        return self.unit_to_raw(rng.random((int(n), self.dim)))

    # -- evaluation ---------------------------------------------------------------------------
    def validate_raw(self, X_raw: np.ndarray) -> np.ndarray:
        """``X_raw`` as float64 (n, d) with exact integer codes, or a ``ValueError`` naming the
        problem, row and column of the first value outside its variable's domain."""
        X = np.array(X_raw, dtype=float)
        if X.ndim == 1 and X.shape[0] == self.dim:
            X = X[None, :]
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(
                f"{self.name}: expected raw points of shape (n, {self.dim}), got {np.shape(X_raw)}"
            )
        if not np.all(np.isfinite(X)):
            raise ValueError(f"{self.name}: raw input contains NaN or inf")
        lo, hi = self.bounds
        rounded = np.rint(X)
        off_grid = self._finite & (np.abs(X - rounded) > CODE_TOLERANCE)
        span = hi - lo
        outside = (X < lo - CODE_TOLERANCE * span) | (X > hi + CODE_TOLERANCE * span)
        bad = off_grid | outside
        if bad.any():
            r, c = np.argwhere(bad)[0]
            what = (
                f"levels 0..{self.levels[c] - 1}" if self._finite[c] else f"[{lo[c]:g}, {hi[c]:g}]"
            )
            raise ValueError(f"{self.name}: raw value {X[r, c]:g} in row {r}, column {c}: {what}")
        return np.where(self._finite, rounded, np.clip(X, lo, hi))

    def evaluate_raw(self, X_raw: np.ndarray) -> np.ndarray:
        """Objective values (n,) at raw domain points, maximisation convention."""
        X = self.validate_raw(X_raw)
        y = np.asarray(self._evaluate_raw(X), dtype=float).reshape(-1)
        if y.shape[0] != X.shape[0]:
            raise RuntimeError(f"{self.name}: returned {y.shape[0]} values for {X.shape[0]} points")
        return y

    def _evaluate_unit(self, X: np.ndarray) -> np.ndarray:
        return self._evaluate_raw(self.unit_to_raw(X))

    def _evaluate_raw(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError
