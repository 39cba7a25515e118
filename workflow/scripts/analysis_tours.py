"""Snakemake entry point: insertion-tour quality on a subsample of run traces."""

import sys

from boexplore.analysis.config import analysis_config
from boexplore.analysis.tours import trace_tour_quality
from boexplore.io import atomic_write
from boexplore.pipeline.io import setup_job_logging

setup_job_logging(snakemake.log[0])
cfg = analysis_config({"tours": dict(snakemake.params.tours)})["tours"]
table = trace_tour_quality(
    list(snakemake.input.runs),
    prefix_sizes=cfg["prefix_sizes"],
    max_traces=cfg["max_traces"],
    exact_max=cfg["exact_max"],
    seed=cfg["seed"],
)
atomic_write(table, snakemake.output[0])
if len(table):
    print(table.groupby("n")[["ratio_best", "ratio_lb"]].describe().to_string(), file=sys.stderr)
