"""Snakemake job: E1 regret-curve runs of one (problem, method, seed chunk)."""

import sys

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

from boexplore.parametric.experiments import run_e1  # noqa: E402
from boexplore.parametric.grid import atomic_write  # noqa: E402

w = snakemake.wildcards
atomic_write(run_e1(snakemake.params.cfg, w.pkey, w.pmethod, int(w.pchunk)), snakemake.output[0])
