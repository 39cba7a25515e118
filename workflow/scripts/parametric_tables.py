"""Snakemake job: aggregate paper-2 runs into tables and the claims table."""

from boexplore.analysis.paper2.tables import build_tables
from boexplore.pipeline.io import setup_job_logging

setup_job_logging(snakemake.log[0])
build_tables(snakemake.params.cfg, dict(snakemake.input), dict(snakemake.output))
