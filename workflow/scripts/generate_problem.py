"""Snakemake script: materialise one problem instance (logic in boexplore.pipeline)."""

from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.problems_stage import generate_problem

setup_job_logging(snakemake.log[0])
generate_problem(snakemake.params.entry, snakemake.output[0], snakemake.params.data)
