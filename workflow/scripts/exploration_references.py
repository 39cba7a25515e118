"""Snakemake entry point: the exploration monitor's reference table (tune-half problems)."""

import pandas as pd

from boexplore.analysis.config import analysis_config
from boexplore.analysis.uses.inputs import split_problems
from boexplore.diagnostics.build import build_references, write_references
from boexplore.pipeline.io import setup_job_logging

setup_job_logging(snakemake.log[0])
cfg = analysis_config(dict(snakemake.params.analysis))["uses"]
metrics = pd.read_parquet(snakemake.input.metrics)
dims = metrics.groupby("problem")["dim"].first().to_dict()
tune, _ = split_problems(cfg, sorted(dims), dims)
write_references(build_references(metrics, tune, cfg["reference_methods"]), snakemake.output[0])
