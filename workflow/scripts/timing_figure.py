"""Snakemake script: cost per BO iteration figure."""

import pandas as pd

from boexplore.io import write_sidecar
from boexplore.pipeline.io import setup_job_logging
from boexplore.plotting.workflow_figures import plot_run_timings

setup_job_logging(snakemake.log[0])
plot_run_timings(pd.read_csv(snakemake.input[0]), snakemake.output.png, snakemake.output.pdf)
write_sidecar(
    snakemake.output.png,
    inputs=[snakemake.input[0]],
    outputs=[snakemake.output.png, snakemake.output.pdf],
)
