"""Domain descriptions (box, integer, binary, categorical, mixed) and the checks of points on them.

Our extension, no statement of paper 1 (whose metrics are defined on the box only). A point
is a row of raw values, one column per variable:

- ``Continuous(lower, upper)``: a real in [lower, upper] (scaled to [0, 1] for distances);
- ``Integer(lower, upper)``: an integer in lower..upper (scaled to [0, 1] by its range);
- ``Binary()``: 0 or 1;
- ``Categorical(levels)``: a level code 0 .. levels-1 (codes are labels: no order).

``Domain`` is the ordered tuple of variables; a domain with several kinds is "mixed". Every
error about a description or about points that do not fit it is a :class:`DomainError`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

#: Integer-coded values within this of an integer count as that integer (float round-off).
INTEGER_TOLERANCE = 1e-9
#: Continuous values this far (relative to the range) outside their interval are clipped.
RANGE_TOLERANCE = 1e-9


class DomainError(ValueError):
    """A domain description that is not valid, or points that do not fit their domain."""


@dataclass(frozen=True)
class Continuous:
    """A real variable in [lower, upper]; distances use it scaled to [0, 1]."""

    lower: float = 0.0
    upper: float = 1.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lower) and math.isfinite(self.upper)):
            raise DomainError(
                f"continuous: bounds must be finite, got [{self.lower}, {self.upper}]"
            )
        if self.upper <= self.lower:
            raise DomainError(f"continuous: upper {self.upper} <= lower {self.lower}")

    @property
    def token(self) -> str:
        if (self.lower, self.upper) == (0.0, 1.0):
            return "continuous"
        return f"continuous({_number(self.lower)},{_number(self.upper)})"


@dataclass(frozen=True)
class Integer:
    """An ordered integer variable lower..upper; distances use (value - lower) / (upper - lower)."""

    lower: int
    upper: int

    def __post_init__(self) -> None:
        for v in (self.lower, self.upper):
            if isinstance(v, bool) or int(v) != v:
                raise DomainError(f"integer: bounds must be integers, got {v!r}")
        if self.upper <= self.lower:
            raise DomainError(f"integer: upper {self.upper} <= lower {self.lower}")

    @property
    def token(self) -> str:
        return f"integer({int(self.lower)},{int(self.upper)})"


@dataclass(frozen=True)
class Binary:
    """A 0/1 variable; two points differ by 1 where they disagree."""

    @property
    def levels(self) -> int:
        return 2

    @property
    def token(self) -> str:
        return "binary"


@dataclass(frozen=True)
class Categorical:
    """An unordered variable with ``levels`` codes 0 .. levels-1; any two distinct codes differ by 1."""

    levels: int

    def __post_init__(self) -> None:
        if isinstance(self.levels, bool) or int(self.levels) != self.levels or self.levels < 2:
            raise DomainError(f"categorical: levels must be an integer >= 2, got {self.levels!r}")

    @property
    def token(self) -> str:
        return f"categorical({int(self.levels)})"


Variable = Continuous | Integer | Binary | Categorical
#: Variables compared by mismatch (Hamming) and by scaled difference (Euclidean block).
MISMATCH_KINDS = (Binary, Categorical)
SCALED_KINDS = (Continuous, Integer)


@dataclass(frozen=True)
class DomainPoints:
    """Validated points split by block: ``codes`` (T, h) level codes of the binary / categorical
    variables, ``scaled`` (T, e) the continuous / integer ones scaled to [0, 1]."""

    codes: np.ndarray
    scaled: np.ndarray

    def __len__(self) -> int:
        return int(self.codes.shape[0])


@dataclass(frozen=True)
class Domain:
    """An ordered tuple of variables (column j of a point is variable j)."""

    variables: tuple[Variable, ...]

    def __post_init__(self) -> None:
        if not self.variables:
            raise DomainError("a domain needs at least one variable")
        bad = [v for v in self.variables if not isinstance(v, (*MISMATCH_KINDS, *SCALED_KINDS))]
        if bad:
            raise DomainError(f"not a domain variable: {bad[0]!r}")
        object.__setattr__(self, "variables", tuple(self.variables))

    @classmethod
    def box(cls, d: int) -> Domain:
        """The unit cube [0, 1]^d (the paper's setting)."""
        if int(d) != d or d < 1:
            raise DomainError(f"box: d must be a positive integer, got {d!r}")
        return cls((Continuous(),) * int(d))

    @property
    def width(self) -> int:
        """Number of variables (columns of a point)."""
        return len(self.variables)

    @property
    def mismatch_columns(self) -> np.ndarray:
        """Columns of the binary and categorical variables."""
        return np.array(
            [j for j, v in enumerate(self.variables) if isinstance(v, MISMATCH_KINDS)], dtype=int
        )

    @property
    def scaled_columns(self) -> np.ndarray:
        """Columns of the continuous and integer variables."""
        return np.array(
            [j for j, v in enumerate(self.variables) if isinstance(v, SCALED_KINDS)], dtype=int
        )

    @property
    def levels(self) -> tuple[int, ...]:
        """Level counts of the binary / categorical variables, in column order."""
        return tuple(int(v.levels) for v in self.variables if isinstance(v, MISMATCH_KINDS))

    @property
    def is_finite(self) -> bool:
        """True when the domain has finitely many points (no continuous variable)."""
        return not any(isinstance(v, Continuous) for v in self.variables)

    @property
    def size(self) -> float:
        """Number of points of the domain (``inf`` with a continuous variable)."""
        if not self.is_finite:
            return math.inf
        n = 1
        for v in self.variables:
            n *= v.levels if isinstance(v, MISMATCH_KINDS) else int(v.upper - v.lower) + 1
        try:
            return float(n)
        except OverflowError:  # more points than a float holds (e.g. 10 levels x 400)
            return math.inf

    @property
    def diameter(self) -> float:
        """Largest distance between two points: (mismatch variables) + sqrt(scaled variables)."""
        return float(len(self.levels) + math.sqrt(len(self.scaled_columns)))

    @property
    def lattice_step(self) -> float:
        """Smallest distance between two distinct points (0 with a continuous variable).

        1 for a binary / categorical variable, 1 / (upper - lower) for an integer one.
        """
        if not self.is_finite:
            return 0.0
        steps = [
            1.0 if isinstance(v, MISMATCH_KINDS) else 1.0 / (v.upper - v.lower)
            for v in self.variables
        ]
        return float(min(steps))

    @property
    def spec(self) -> str:
        """Canonical compact description, e.g. ``binary*10,categorical(5)*3``."""
        parts: list[str] = []
        prev, count = None, 0
        for v in self.variables:
            if v.token == prev:
                count += 1
                continue
            if prev is not None:
                parts.append(prev if count == 1 else f"{prev}*{count}")
            prev, count = v.token, 1
        parts.append(prev if count == 1 else f"{prev}*{count}")
        return ",".join(parts)

    def encode(self, X: ArrayLike, *, name: str = "X") -> DomainPoints:
        """Check raw points against the domain and split them into the two distance blocks.

        Raises :class:`DomainError` naming the row, column and variable of the first value that
        does not fit (0.5 in a binary variable, level 7 of 5, NaN, out of range), and when the
        number of columns is not the domain's width.
        """
        A = _as_matrix(X, name)
        if A.shape[1] != self.width:
            raise DomainError(
                f"{name} has {A.shape[1]} columns but the domain {self.spec!r} describes "
                f"{self.width} variables"
            )
        finite = np.isfinite(A)
        if not finite.all():
            r, c = np.argwhere(~finite)[0]
            raise DomainError(f"{name} holds {A[r, c]} in row {r}, column {c} (NaN or inf)")
        codes = np.empty((A.shape[0], len(self.levels)), dtype=np.int64)
        scaled = np.empty((A.shape[0], len(self.scaled_columns)), dtype=np.float64)
        ci = si = 0
        for j, v in enumerate(self.variables):
            col = A[:, j]
            if isinstance(v, MISMATCH_KINDS):
                codes[:, ci] = _levels(col, 0, v.levels - 1, j, v, name)
                ci += 1
            elif isinstance(v, Integer):
                ints = _levels(col, v.lower, v.upper, j, v, name)
                scaled[:, si] = (ints - v.lower) / (v.upper - v.lower)
                si += 1
            else:
                scaled[:, si] = _continuous(col, v, j, name)
                si += 1
        return DomainPoints(codes, np.ascontiguousarray(scaled))

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` independent uniform points of the domain (raw values, shape (n, width))."""
        out = np.empty((int(n), self.width))
        for j, v in enumerate(self.variables):
            if isinstance(v, MISMATCH_KINDS):
                out[:, j] = rng.integers(0, v.levels, size=n)
            elif isinstance(v, Integer):
                out[:, j] = rng.integers(v.lower, v.upper + 1, size=n)
            else:
                out[:, j] = v.lower + (v.upper - v.lower) * rng.random(n)
        return out


def _number(x: float) -> str:
    """Shortest text that reads back as the same float (``-5``, ``0.1``, ``1e-07``)."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def _as_matrix(X: ArrayLike, name: str) -> np.ndarray:
    try:
        A = np.array(X, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise DomainError(f"{name} must be a numeric array: {exc}") from exc
    if A.ndim != 2 or A.shape[0] == 0:
        raise DomainError(f"{name} must be a non-empty 2-D array (T, width), got shape {A.shape}")
    return A


def _levels(col: np.ndarray, lo: int, hi: int, j: int, var: Variable, name: str) -> np.ndarray:
    """Integer codes of one column, or a DomainError on the first value that is not one."""
    rounded = np.rint(col)
    bad = (np.abs(col - rounded) > INTEGER_TOLERANCE) | (rounded < lo) | (rounded > hi)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        if isinstance(var, Binary):
            what = "a binary variable takes 0 or 1"
        elif isinstance(var, Categorical):
            what = (
                f"a categorical variable with {var.levels} levels takes codes 0..{var.levels - 1}"
            )
        else:
            what = f"an integer variable takes integers {lo}..{hi}"
        raise DomainError(f"{name} holds {col[r]:g} in row {r}, column {j}: {what}")
    return rounded.astype(np.int64)


def _continuous(col: np.ndarray, var: Continuous, j: int, name: str) -> np.ndarray:
    span = var.upper - var.lower
    u = (col - var.lower) / span
    bad = (u < -RANGE_TOLERANCE) | (u > 1.0 + RANGE_TOLERANCE)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise DomainError(
            f"{name} holds {col[r]:g} in row {r}, column {j}: outside the continuous "
            f"variable's range [{var.lower:g}, {var.upper:g}]"
        )
    return np.clip(u, 0.0, 1.0)
