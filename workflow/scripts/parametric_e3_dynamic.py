"""Snakemake job: E3 dynamic RR-TS runs at one (lambda, init scale) cell and seed chunk."""

import sys

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

from boexplore.parametric.experiments import run_e3_dynamic  # noqa: E402
from boexplore.parametric.grid import atomic_write  # noqa: E402

w = snakemake.wildcards
atomic_write(run_e3_dynamic(snakemake.params.cfg, w.pcell, int(w.pchunk)), snakemake.output[0])
