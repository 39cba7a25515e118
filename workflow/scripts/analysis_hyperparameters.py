"""Snakemake entry point: the hyperparameter study's rules H1-H4 on the final metrics."""

import pandas as pd

from boexplore.analysis.hyperparameters import StudyRules, decide_study, markdown, study_cells
from boexplore.analysis.summaries import final_rows
from boexplore.io import atomic_write, atomic_write_text
from boexplore.pipeline.io import setup_job_logging

setup_job_logging(snakemake.log[0])
final = final_rows(pd.read_parquet(snakemake.input.metrics))
config = {"methods": dict(snakemake.params.methods), "bo": dict(snakemake.params.bo)}
table = decide_study(final, study_cells(config), StudyRules.from_config(snakemake.params.rules))
atomic_write(table, snakemake.output.csv)
atomic_write_text(markdown(table), snakemake.output.md)
