"""Snakemake script: a run file from the study's committed data release (no BO)."""

from pathlib import Path

from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.release import restore_seeds, restore_trace

setup_job_logging(snakemake.log[0])
if len(snakemake.input) == 1 and Path(snakemake.input[0]).stem == Path(snakemake.output[0]).stem:
    restore_trace(snakemake.input[0], snakemake.output[0])
else:  # the release groups this job's seeds in other files
    restore_seeds([Path(p) for p in snakemake.input], snakemake.params.seeds, snakemake.output[0])
