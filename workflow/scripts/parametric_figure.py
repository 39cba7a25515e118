"""Snakemake job: one paper-2 figure (png + pdf) and its provenance sidecar."""

import sys

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

from boexplore.parametric.report import make_figure  # noqa: E402

make_figure(
    snakemake.params.kind,
    list(snakemake.input),
    [snakemake.output.png, snakemake.output.pdf],
    snakemake.params.cfg,
)
