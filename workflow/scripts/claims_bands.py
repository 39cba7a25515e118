"""Snakemake entry point: every paper-1 claim part re-decided per band of d."""

import pandas as pd

from boexplore.analysis.config import analysis_config
from boexplore.analysis.paper1.bands import band_parts, bands_markdown
from boexplore.io import atomic_write_text
from boexplore.pipeline.io import setup_job_logging

setup_job_logging(snakemake.log[0])
units = pd.read_csv(snakemake.input.units)
bands = band_parts(units, analysis_config(dict(snakemake.params.analysis)), snakemake.params.budgets)
atomic_write_text(bands.to_csv(index=False), snakemake.output.csv)
atomic_write_text(bands_markdown(bands, snakemake.params.tier), snakemake.output.md)
