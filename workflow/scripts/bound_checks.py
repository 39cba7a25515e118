"""Snakemake script: OTSD bound checks, their summary and figure."""

import pandas as pd

from boexplore.io import write_sidecar
from boexplore.pipeline.bounds_stage import bound_checks
from boexplore.pipeline.io import setup_job_logging
from boexplore.plotting.workflow_figures import plot_otsd_bounds

setup_job_logging(snakemake.log[0])
bound_checks(snakemake.input[0], snakemake.output.table, snakemake.output.summary)
plot_otsd_bounds(pd.read_parquet(snakemake.input[0]), snakemake.output.png, snakemake.output.pdf)
write_sidecar(
    snakemake.output.png,
    inputs=[snakemake.input[0]],
    config_section=snakemake.params.config_section,
    outputs=[snakemake.output.png, snakemake.output.pdf],
)
