"""Snakemake entry point: draw one paper-1 figure (name in ``params.figure``)."""

import sys

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

from boexplore.plotting.paper1 import draw_figure  # noqa: E402

draw_figure(
    snakemake.params.figure,
    dict(snakemake.input),
    snakemake.output.png,
    dict(snakemake.params.analysis),
)
