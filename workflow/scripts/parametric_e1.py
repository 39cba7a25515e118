"""Snakemake job: E1 regret-curve runs of one (problem, method, seed chunk)."""

from boexplore.io import atomic_write
from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.paper2_experiments import run_e1

setup_job_logging(snakemake.log[0])
w = snakemake.wildcards
atomic_write(run_e1(snakemake.params.cfg, w.pkey, w.pmethod, int(w.pchunk)), snakemake.output[0])
