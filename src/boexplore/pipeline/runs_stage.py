"""Stage 2: one BO run from a problem spec file, resumable through its checkpoint."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from boexplore.io import atomic_write

log = logging.getLogger("boexplore.pipeline")


def run_from_spec(
    problem_json: str | Path,
    problem_label: str,
    method_label: str,
    method_spec: str,
    seeds: Sequence[int],
    budget: int,
    n_init: int,
    settings: Mapping[str, Any],
    out: str | Path,
    checkpoint_dir: str | Path | None = None,
    extend_from: Sequence[str | Path] = (),
) -> None:
    """Run BO on the saved instance for each seed in turn; write all traces to one parquet.

    Each seed checkpoints to ``<checkpoint_dir>/seed<k>.ckpt`` after every
    iteration, so a killed job resumes at the seed and iteration it reached. The
    checkpoints carry the problem file's digest (JSON + data files), so a changed
    instance never resumes an old run; they are removed once the trace is written,
    so a forced rerun starts afresh. ``extend_from``: (released) trace files holding some
    of these seeds' first evaluations; those runs continue from them instead of starting anew.
    A ``device`` (``bo.device``) this machine lacks fails here, before anything is written.
    """
    import pandas as pd
    import torch

    from boexplore.bo import run_bo
    from boexplore.bo.checkpoint import remove_checkpoint
    from boexplore.bo.device import run_device
    from boexplore.bo.engine import stamp_trace
    from boexplore.bo.identity import problem_file_digest
    from boexplore.problems import load_instance

    settings = dict(settings)
    torch.set_num_threads(int(settings.pop("torch_threads", 1)))
    extra = dict(settings.pop("extra", {}) or {})
    run_device(str({**settings, **extra}.get("device", "cpu")))
    problem = load_instance(problem_json)
    problem_sha256 = problem_file_digest(problem_json)
    source = None
    source_seeds: set[int] = set()
    if extend_from:
        from boexplore.io import sha256_file
        from boexplore.pipeline.release import read_released

        source = read_released(extend_from)
        source_seeds = {int(s) for s in source["seed"].unique()}
        log.info(
            "extending the runs of %s (%d rows)", ", ".join(map(str, extend_from)), len(source)
        )
    if checkpoint_dir is not None:
        Path(checkpoint_dir).mkdir(parents=True, exist_ok=True)
    log.info(
        "settings of %s: %s",
        method_label,
        ", ".join(f"{k}={v}" for k, v in sorted({**settings, **extra}.items())) or "defaults",
    )
    traces = []
    checkpoints: list[Path] = []
    for seed in seeds:
        log.info(
            "run %s / %s (%s) seed %d budget %d",
            problem_label,
            method_label,
            method_spec,
            seed,
            budget,
        )
        checkpoint = (
            Path(checkpoint_dir) / f"seed{seed}.ckpt" if checkpoint_dir is not None else None
        )
        if checkpoint is not None:
            checkpoints.append(checkpoint)
        traces.append(
            run_bo(
                problem,
                method_spec,
                seed=int(seed),
                budget=int(budget),
                n_init=int(n_init),
                checkpoint=checkpoint,
                progress=True,
                method_label=method_label,
                problem_label=problem_label,
                problem_sha256=problem_sha256,
                extend_from=source if seed in source_seeds else None,
                **settings,
                **extra,
            )
        )
    trace = pd.concat(traces, ignore_index=True)
    stamp_trace(trace)
    if source is not None:
        trace.attrs["boexplore"]["extended_from"] = {
            "files": {str(f): sha256_file(f) for f in extend_from},
            "rows": len(source),
        }
    atomic_write(trace, out)
    for checkpoint in checkpoints:
        remove_checkpoint(checkpoint)
    log.info("wrote %s (%d rows, %d seeds)", out, len(trace), len(traces))
