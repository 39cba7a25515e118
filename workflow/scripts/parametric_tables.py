"""Snakemake job: aggregate paper-2 runs into tables and the claims table."""

import sys

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

from boexplore.parametric.report import build_tables  # noqa: E402

build_tables(snakemake.params.cfg, dict(snakemake.input), dict(snakemake.output))
