"""Snakemake script: exploration metrics of one run."""

from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.metrics_stage import score_run

setup_job_logging(snakemake.log[0])
score_run(snakemake.input[0], snakemake.output[0])
