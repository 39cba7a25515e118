"""Snakemake job: E2 bound check at one (problem, regulariser, width, seed chunk), all (s, lambda) cells."""

from boexplore.io import atomic_write
from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.paper2_experiments import run_e2

setup_job_logging(snakemake.log[0])
w = snakemake.wildcards
bounds, traces = run_e2(snakemake.params.cfg, w.pkey, w.preg, int(w.pwidth), int(w.pchunk))
atomic_write(traces, snakemake.output.traces)
atomic_write(bounds, snakemake.output.bounds)
