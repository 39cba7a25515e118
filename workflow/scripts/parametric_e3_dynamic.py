"""Snakemake job: E3 dynamic RR-TS runs at one (lambda, init scale) cell and seed chunk."""

from boexplore.io import atomic_write
from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.paper2_experiments import run_e3_dynamic

setup_job_logging(snakemake.log[0])
w = snakemake.wildcards
atomic_write(run_e3_dynamic(snakemake.params.cfg, w.pcell, int(w.pchunk)), snakemake.output[0])
