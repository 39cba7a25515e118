"""Snakemake script: tidy tables of all scored runs."""

from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.metrics_stage import aggregate_metrics, summarize_runs, write_provenance

setup_job_logging(snakemake.log[0])
aggregate_metrics(
    snakemake.input.metrics,
    snakemake.params.methods,
    snakemake.params.problems,
    snakemake.output.metrics,
)
summarize_runs(snakemake.input.runs, snakemake.output.summary)
write_provenance(
    snakemake.input.runs,
    snakemake.input.metrics,
    snakemake.input.problems,
    snakemake.output.provenance,
)
