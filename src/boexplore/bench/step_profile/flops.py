"""Flops of one qKG evaluation: counted from the dense linear algebra that runs, and by formula.

Functions of shapes only, apart from the profilers; the count checks the formula (package doc)."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np


def _batch(shape: Sequence[int]) -> int:
    return int(math.prod(shape))


def _broadcast_batch(a: Any, b: Any) -> int:
    """The batch size of two matrix operands broadcast against each other."""
    return _batch(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))


def _op_flops(name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> float | None:
    """Flops of one dense linear-algebra aten op from its shapes (None: not such an op)."""
    t = [a for a in args if hasattr(a, "shape")]
    if name in ("mm", "addmm"):
        x, y = (t[0], t[1]) if name == "mm" else (t[1], t[2])
        (a, k), (_, b) = x.shape, y.shape
        return 2.0 * a * k * b
    if name in ("bmm", "baddbmm"):
        x, y = (t[0], t[1]) if name == "bmm" else (t[1], t[2])
        return 2.0 * x.shape[0] * x.shape[1] * x.shape[2] * y.shape[2]
    if name in ("mv", "addmv"):
        mat = t[0] if name == "mv" else t[1]
        return 2.0 * mat.shape[0] * mat.shape[1]
    if name in ("dot", "vdot"):
        return 2.0 * t[0].shape[0]
    if name in ("linalg_cholesky_ex", "cholesky"):
        m = t[0].shape[-1]
        return _batch(t[0].shape[:-2]) * m**3 / 3.0
    if name == "cholesky_solve":
        rhs, chol = t[0], t[1]
        m, k = rhs.shape[-2], rhs.shape[-1]
        return _broadcast_batch(rhs, chol) * 2.0 * m * m * k
    if name == "linalg_solve_triangular":
        a, b = t[0], t[1]
        left = bool(kwargs.get("left", args[3] if len(args) > 3 else True))
        m, k = a.shape[-1], (b.shape[-1] if left else b.shape[-2])
        return _broadcast_batch(a, b) * float(m) * m * k
    if name == "triangular_solve":
        b, a = t[0], t[1]
        return _broadcast_batch(a, b) * float(a.shape[-1]) ** 2 * b.shape[-1]
    if name == "linalg_qr":
        r, c = t[0].shape[-2], t[0].shape[-1]
        k = min(r, c)
        flops = 2.0 * max(r, c) * k * k - 2.0 * k**3 / 3.0  # Householder (geqrf)
        mode = kwargs.get("mode", args[1] if len(args) > 1 else "reduced")
        if mode != "r":  # Q formed explicitly (orgqr: M x N from K reflectors)
            cols = r if mode == "complete" else k
            flops += 4.0 * r * cols * k - 2.0 * (r + cols) * k * k + 4.0 * k**3 / 3.0
        return _batch(t[0].shape[:-2]) * flops
    if name in ("linalg_inv_ex", "linalg_inv"):
        m = t[0].shape[-1]
        return _batch(t[0].shape[:-2]) * 2.0 * m**3
    if name in ("linalg_lu_factor_ex", "linalg_lu_factor"):
        m = t[0].shape[-1]
        return _batch(t[0].shape[:-2]) * 2.0 * m**3 / 3.0
    if name in ("_linalg_solve_ex", "linalg_solve_ex", "linalg_solve"):
        a, b = t[0], t[1]
        m = a.shape[-1]
        k = b.shape[-1] if b.dim() == a.dim() else 1
        return _batch(a.shape[:-2]) * (2.0 * m**3 / 3.0 + 2.0 * m * m * k)
    return None


#: aten ops counted as dense linear algebra by :func:`count_flops`.
COUNTED_OPS = ("mm", "bmm", "baddbmm", "addmm", "mv", "addmv", "dot", "vdot",
               "linalg_cholesky_ex", "cholesky", "cholesky_solve", "linalg_solve_triangular",
               "triangular_solve", "linalg_qr", "linalg_inv_ex", "linalg_inv",
               "linalg_lu_factor_ex", "linalg_lu_factor", "_linalg_solve_ex", "linalg_solve_ex",
               "linalg_solve")  # fmt: skip
_LINALG_LIKE = re.compile(
    r"^(linalg_|_linalg_)|solve|cholesky|^(geqrf|orgqr|ormqr|inverse|addbmm|"
    r"addr|outer|ger|kron|tensordot|logdet|slogdet|lu_unpack)$"
)


def count_flops(fn: Callable[[], Any]) -> tuple[float, dict[str, float], set[str]]:
    """Run ``fn`` and count the flops of its dense linear algebra from the ops' shapes.

    Every aten op that runs (forward and backward) passes a dispatch mode; (total flops, flops
    per op name, names of linear-algebra-like ops it has no rule for)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    per_op: dict[str, float] = defaultdict(float)
    unknown: set[str] = set()

    class _Count(TorchDispatchMode):
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            kwargs = kwargs or {}
            name = func.overloadpacket.__name__
            flops = _op_flops(name, args, kwargs) if name in COUNTED_OPS else None
            if flops is not None:
                per_op[name] += flops
            elif _LINALG_LIKE.search(name) and not name.endswith("_backward"):
                unknown.add(name)
            return func(*args, **kwargs)

    with _Count():
        fn()
    return float(sum(per_op.values())), dict(per_op), unknown


def model_flops(n: int, fantasies: int, d: int, q: int = 1, grad: bool = False,
                fantasy_cache: bool = False) -> dict[str, float]:  # fmt: skip
    """Flops of one qKG evaluation of one one-shot tree by term (the package docstring's formula).
    ``fantasy_cache``: the mean cache is the bordered solve GPyTorch already made
    (``bo.kg_fantasy_cache``), ``4 F n q`` flops; its gradient adds ``8 F n q`` and the
    backward pass through the conditioned ``m x m`` kernel matrix, ``2 m^2 p + 3 F m p``
    (read off the counted ops at n = 15 and 60; within 2 % there)."""
    F, m, p = float(fantasies), float(n + q), float(d + 2)
    mean_cache = (
        4.0 * F * n * q
        if fantasy_cache
        else (2.0 * m * m * p + 2.0 * F * m**3 + F * m**3 / 3.0 + 2.0 * F * m * m)
    )
    terms = {
        "conditioning": 8.0 * n * n * q,
        "inverse root": 11.0 / 3.0 * m**3,
        "mean cache": mean_cache,
        "prediction": 2.0 * F * m * p + 2.0 * F * m * m,
    }
    if grad:
        terms["conditioning"] += 2.0 * n * n * q
        terms["mean cache"] += (
            8.0 * F * n * q + 2.0 * m * m * p + 3.0 * F * m * p
            if fantasy_cache
            else (2.0 * F * m**3 + F * m**3 / 3.0 + 6.0 * F * m * m + 4.0 * m * m * p)
        )
        terms["prediction"] += 4.0 * F * m * p
    return terms


# --- one state ---------------------------------------------------------------------------
