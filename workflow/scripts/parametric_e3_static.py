"""Snakemake job: E3 static probe over the (lambda, init scale) grid."""

from boexplore.io import atomic_write
from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.paper2_experiments import run_e3_static

setup_job_logging(snakemake.log[0])
atomic_write(run_e3_static(snakemake.params.cfg), snakemake.output[0])
