"""Snakemake job: E4 continuous sanity runs of one (problem, method, seed chunk)."""

from boexplore.io import atomic_write
from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.paper2_experiments import run_e4

setup_job_logging(snakemake.log[0])
w = snakemake.wildcards
atomic_write(run_e4(snakemake.params.cfg, w.pkey, w.pmethod, int(w.pchunk)), snakemake.output[0])
