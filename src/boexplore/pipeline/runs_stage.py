"""Stage 2: one BO run from a problem spec file, resumable through its checkpoint."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from boexplore.pipeline.io import atomic_write_parquet

log = logging.getLogger("boexplore.pipeline")


def run_from_spec(
    problem_json: str | Path,
    problem_label: str,
    method_label: str,
    method_spec: str,
    seed: int,
    budget: int,
    n_init: int,
    settings: Mapping[str, Any],
    out: str | Path,
    checkpoint: str | Path | None = None,
) -> None:
    """Run BO on the saved instance and write the trace parquet atomically."""
    import torch

    from boexplore.bo import run_bo
    from boexplore.problems import load_instance

    settings = dict(settings)
    torch.set_num_threads(int(settings.pop("torch_threads", 1)))
    extra = dict(settings.pop("extra", {}) or {})
    problem = load_instance(problem_json)
    if checkpoint is not None:
        Path(checkpoint).parent.mkdir(parents=True, exist_ok=True)
    log.info("run %s / %s (%s) seed %d budget %d", problem_label, method_label, method_spec, seed, budget)
    trace = run_bo(
        problem,
        method_spec,
        seed=int(seed),
        budget=int(budget),
        n_init=int(n_init),
        checkpoint=Path(checkpoint) if checkpoint else None,
        progress=True,
        method_label=method_label,
        problem_label=problem_label,
        **settings,
        **extra,
    )
    atomic_write_parquet(trace, out)
    log.info("wrote %s (%d rows)", out, len(trace))
