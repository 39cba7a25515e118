"""Snakemake script: one BO run (logic in boexplore.pipeline.runs_stage)."""

from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.runs_stage import run_from_spec

setup_job_logging(snakemake.log[0])
run_from_spec(
    problem_json=snakemake.input.problem,
    problem_label=snakemake.wildcards.problem,
    method_label=snakemake.wildcards.method,
    method_spec=snakemake.params.spec,
    seeds=snakemake.params.seeds,
    budget=snakemake.params.budget,
    n_init=snakemake.params.n_init,
    settings=snakemake.params.settings,
    out=snakemake.output[0],
    checkpoint_dir=snakemake.params.checkpoint_dir,
    extend_from=list(getattr(snakemake.input, "released_prefix", [])),
)
