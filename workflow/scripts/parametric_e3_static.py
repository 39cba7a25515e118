"""Snakemake job: E3 static probe over the (lambda, init scale) grid."""

import sys

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

from boexplore.parametric.experiments import run_e3_static  # noqa: E402
from boexplore.parametric.grid import atomic_write  # noqa: E402

atomic_write(run_e3_static(snakemake.params.cfg), snakemake.output[0])
