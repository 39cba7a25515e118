"""Snakemake script: a run file from the study's committed data release (no BO)."""

from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.release import restore_trace

setup_job_logging(snakemake.log[0])
restore_trace(snakemake.input[0], snakemake.output[0])
