"""Snakemake entry point: draw one paper-1 figure (name in ``params.figure``)."""

from boexplore.pipeline.io import setup_job_logging
from boexplore.plotting.paper1 import draw_figure

setup_job_logging(snakemake.log[0])
draw_figure(
    snakemake.params.figure,
    dict(snakemake.input),
    snakemake.output.png,
    dict(snakemake.params.analysis),
)
