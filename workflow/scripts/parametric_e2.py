"""Snakemake job: E2 bound check at one (problem, regulariser, width, seed chunk), all (s, lambda) cells."""

import sys

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

from boexplore.parametric.experiments import run_e2  # noqa: E402
from boexplore.parametric.grid import atomic_write  # noqa: E402

w = snakemake.wildcards
bounds, traces = run_e2(snakemake.params.cfg, w.pkey, w.preg, int(w.pwidth), int(w.pchunk))
atomic_write(traces, snakemake.output.traces)
atomic_write(bounds, snakemake.output.bounds)
