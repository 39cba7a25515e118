"""Peak-memory model of a BO job (qKG from its measured step model)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from boexplore.bo.methods import MethodSpec
from boexplore.cost.calibration import EXPENSIVE_METHODS, REF_RAW, REF_RESTARTS


def bo_peak_mem_mb(
    method: MethodSpec,
    budget: int,
    d: int,
    cal: Mapping[str, Any],
    bo: Mapping[str, Any] | None = None,
) -> float:
    """Peak resident memory of a BO job: interpreter + torch, plus GP / fantasy matrices.

    qKG jobs follow the measured model of its last step (n = budget; restarts batched as the
    engine batches them under ``bo.kg_memory_cap_mb``; ``bo.acquisition.kg_memory``).
    """
    mem = cal["bo"]["mem"]
    n = float(budget)
    if method.base == "kg":
        from boexplore.bo.acquisition.kg_memory import KG_MEMORY, kg_batch_limit

        bo = bo or {}
        fantasies = int(method.params.get("fantasies", 64))
        restarts = int(bo.get("num_restarts", REF_RESTARTS))
        cap = bo.get("kg_memory_cap_mb", (bo.get("extra") or {}).get("kg_memory_cap_mb"))
        raw = int(bo.get("raw_samples", REF_RAW))
        batch = kg_batch_limit(budget, d, method.q, fantasies, restarts, cap, raw_samples=raw)
        return KG_MEMORY.step_peak_mb(budget, d, method.q, fantasies, batch_limit=batch,
                                      raw_samples=raw)  # fmt: skip
    extra = mem["per_n2_mb"] * (n / 100.0) ** 2 + mem["per_nd_mb"] * n * d / 1e4
    if method.base in EXPENSIVE_METHODS:
        extra *= mem["expensive_factor"]
    return mem["base_mb"] + extra
