"""Snakemake job: one paper-2 figure (png + pdf) and its provenance sidecar."""

from boexplore.pipeline.io import setup_job_logging
from boexplore.plotting.paper2 import make_figure

setup_job_logging(snakemake.log[0])
make_figure(
    snakemake.params.kind,
    list(snakemake.input),
    [snakemake.output.png, snakemake.output.pdf],
    snakemake.params.cfg,
)
