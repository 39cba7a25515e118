"""Stage 3: score one run, then aggregate all runs into tidy tables."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boexplore.pipeline.io import atomic_write_csv, atomic_write_parquet

log = logging.getLogger("boexplore.pipeline")


def score_run(trace_path: str | Path, out: str | Path) -> None:
    """Per-prefix exploration metrics of every seed's trace in one trace file."""
    from boexplore.metrics import score_trace

    trace = pd.read_parquet(trace_path)
    scored = pd.concat(
        [score_trace(part) for _, part in trace.groupby("seed", sort=True)], ignore_index=True
    )
    atomic_write_parquet(scored, out)
    log.info("scored %s: %d prefixes", trace_path, len(scored))


def method_metadata(methods: Mapping[str, str]) -> pd.DataFrame:
    """One row per method label: spec, base AF, q, trust region, RAASP flags."""
    from boexplore.bo import parse_method

    rows = []
    for label, spec in methods.items():
        parsed = parse_method(spec)
        rows.append(
            {
                "method": label,
                "method_spec": spec,
                "base_method": parsed.base,
                "method_params": repr(sorted(parsed.params.items())),
                "q": int(parsed.q),
                "trust_region": bool(parsed.trust_region),
                "raasp": bool(parsed.raasp),
            }
        )
    return pd.DataFrame(rows)


def problem_metadata(problems: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row per problem label: registered name."""
    return pd.DataFrame(
        [{"problem": label, "problem_name": entry["name"]} for label, entry in problems.items()]
    )


def aggregate_metrics(
    metric_files: Sequence[str | Path],
    methods: Mapping[str, str],
    problems: Mapping[str, Mapping[str, Any]],
    out: str | Path,
) -> pd.DataFrame:
    """Concatenate scored runs and attach method / problem metadata."""
    frames = [pd.read_parquet(p) for p in metric_files]
    if not frames:
        raise ValueError("no scored runs to aggregate (is every method excluded?)")
    table = pd.concat(frames, ignore_index=True)
    table = table.drop(columns=[c for c in ("method_spec",) if c in table])
    table = table.merge(method_metadata(methods), on="method", how="left")
    table = table.merge(problem_metadata(problems), on="problem", how="left")
    atomic_write_parquet(table, out)
    log.info("aggregated %d runs, %d rows", len(frames), len(table))
    return table


def summarize_runs(run_files: Sequence[str | Path], out: str | Path) -> pd.DataFrame:
    """Per-run summary: final best value / regret and time per iteration."""
    rows = []
    traces = (part for path in run_files for _, part in pd.read_parquet(path).groupby("seed", sort=True))
    for trace in traces:
        per_iter = trace[~trace["is_initial"]].drop_duplicates("iteration")
        rows.append(
            {
                "problem": trace["problem"].iloc[0],
                "method": trace["method"].iloc[0],
                "seed": int(trace["seed"].iloc[0]),
                "dim": int(trace["dim"].iloc[0]),
                "n_evals": len(trace),
                "final_best": float(trace["best_so_far"].iloc[-1]),
                "final_regret": float(trace["regret"].iloc[-1]),
                "n_iterations": len(per_iter),
                "fit_seconds_mean": float(per_iter["fit_seconds"].mean()) if len(per_iter) else np.nan,
                "acq_seconds_mean": float(per_iter["acq_seconds"].mean()) if len(per_iter) else np.nan,
                "total_seconds": float(per_iter["fit_seconds"].sum() + per_iter["acq_seconds"].sum()),
                "nan_values": int(trace["y"].isna().sum()),
            }
        )
    summary = pd.DataFrame(rows)
    atomic_write_csv(summary, out)
    return summary


def write_provenance(
    run_files: Sequence[str | Path],
    metric_files: Sequence[str | Path],
    problem_files: Sequence[str | Path],
    out: str | Path,
) -> None:
    """Manifest linking every trace, its scored metrics and problem spec by sha256.

    Figure sidecars list this manifest as an input, so any figure leads back to
    the exact traces and problem specs behind it.
    """
    import json

    from boexplore.pipeline.io import atomic_write_text
    from boexplore.plotting.sidecar import sha256_file

    record = {
        "problems": [{"path": str(p), "sha256": sha256_file(p)} for p in problem_files],
        "runs": [
            {"trace": str(r), "trace_sha256": sha256_file(r), "metrics": str(m), "metrics_sha256": sha256_file(m)}
            for r, m in zip(run_files, metric_files, strict=True)
        ],
    }
    atomic_write_text(json.dumps(record, indent=1), out)
