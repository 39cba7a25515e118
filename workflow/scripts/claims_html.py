"""Snakemake job: one claims CSV rendered as an HTML table for the report."""

from boexplore.pipeline.io import setup_job_logging
from boexplore.reporting.claims_html import write_claims_html

setup_job_logging(snakemake.log[0])
write_claims_html(snakemake.input[0], snakemake.output[0], snakemake.params.title)
