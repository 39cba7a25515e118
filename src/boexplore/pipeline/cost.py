"""The cost model of the workflow, as one module: CPU time and peak memory of every job.

The model lives in ``boexplore.cost`` (per-method CPU, memory, SLURM requests, fits); the
workflow's job costs in ``pipeline.job_costs`` and its calibration in ``pipeline.calibration``.
This module keeps every name in one place for ``boexplore estimate``, ``common.smk`` and
existing imports.
"""

from boexplore.cost.calibration import (
    CALIBRATION_FILE,
    EXPENSIVE_METHODS,
    MODEL_FREE,
    REF_RAW,
    REF_RESTARTS,
    JobCost,
    config_calibration,
    load_calibration,
)
from boexplore.cost.cpu import (
    CONDITION_SHARE,
    FIXED_ACQ_SHARE,
    batch_factor,
    bo_iteration_seconds,
    bo_seed_seconds,
    fit_schedule_scale,
    problem_eval_seconds,
)
from boexplore.cost.fit import fit_iteration_model, parse_timing_tables
from boexplore.cost.memory import bo_peak_mem_mb
from boexplore.cost.requests import (
    max_runtime_min,
    mem_request_mb,
    runtime_request_min,
    segments_needed,
)
from boexplore.pipeline.calibration import (
    BENCH_RULES,
    band_report,
    calibrate,
    compare,
    compare_iterations,
    format_band_compare,
    format_compare,
    iterations_from_traces,
    read_benchmarks,
    refit_fit_terms,
    release_iterations,
    step_profile_rows,
)
from boexplore.pipeline.job_costs import (
    STAGE_ORDER,
    bo_job_cost,
    combinatorial_job_costs,
    format_summary,
    format_timed_out,
    parametric_job_cost,
    parametric_job_costs,
    parametric_units,
    released_complete,
    released_start,
    score_job_cost,
    score_units,
    summarize,
    timed_out_steps,
    workflow_job_costs,
)
from boexplore.workflow_config import chunk_size

__all__ = [
    "BENCH_RULES", "CALIBRATION_FILE", "band_report", "CONDITION_SHARE", "EXPENSIVE_METHODS",
    "FIXED_ACQ_SHARE", "MODEL_FREE", "REF_RAW", "REF_RESTARTS", "STAGE_ORDER", "JobCost",
    "batch_factor", "bo_iteration_seconds", "bo_job_cost", "bo_peak_mem_mb", "bo_seed_seconds",
    "calibrate", "chunk_size", "combinatorial_job_costs", "compare", "compare_iterations",
    "config_calibration", "format_band_compare", "refit_fit_terms", "release_iterations",
    "step_profile_rows", "fit_iteration_model",
    "fit_schedule_scale", "format_compare", "format_summary", "format_timed_out",
    "iterations_from_traces", "load_calibration", "max_runtime_min", "mem_request_mb",
    "parametric_job_cost", "parametric_job_costs", "parametric_units", "parse_timing_tables",
    "problem_eval_seconds", "read_benchmarks", "released_complete", "released_start",
    "runtime_request_min", "score_job_cost", "score_units", "segments_needed", "summarize",
    "timed_out_steps", "workflow_job_costs",
]  # fmt: skip
