"""Snakemake entry point: the diagnostics figure (monitor timelines of example runs)."""

import pandas as pd

from boexplore.analysis.config import analysis_config
from boexplore.analysis.uses.inputs import example_timelines
from boexplore.diagnostics.references import read_references
from boexplore.pipeline.io import setup_job_logging
from boexplore.plotting.diagnostics import plot_diagnostics

setup_job_logging(snakemake.log[0])
section = analysis_config(dict(snakemake.params.analysis))
cfg = section["uses"]
metrics = pd.read_parquet(snakemake.input.metrics)
refs = read_references(snakemake.input.references)
plot_diagnostics(
    example_timelines(metrics, cfg, refs),
    snakemake.output.png,
    list(snakemake.input),
    section,
    over_ratio=float(cfg["monitor"]["over_ratio"]),
)
