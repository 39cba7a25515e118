"""Snakemake entry point: every paper-1 analysis table and the claims tables."""

import sys
from pathlib import Path

import pandas as pd

from boexplore.analysis.claims import claims_report, write_claims
from boexplore.analysis.pipeline import run_analysis, write_tables
from boexplore.analysis.variants import mechanism_activity_from_files
from boexplore.pipeline.io import setup_job_logging

setup_job_logging(snakemake.log[0])
metrics = pd.read_parquet(snakemake.input.metrics)
runs = list(getattr(snakemake.input, "runs", []) or [])
activity = mechanism_activity_from_files(runs) if runs else None
result = run_analysis(metrics, dict(snakemake.params.analysis), activity=activity)
written = write_tables(result, Path(snakemake.output.claims_csv).parent)
for name, path in written.items():
    expected = Path(getattr(snakemake.output, name))
    if expected != path:
        raise RuntimeError(f"table {name} written to {path}, rule expects {expected}")
report = claims_report(result)
write_claims(
    report,
    snakemake.output.claims_csv,
    snakemake.output.claims_md,
    getattr(snakemake.output, "claims_parts", None),
    getattr(snakemake.output, "claims_units", None),
)
for note in result.notes:
    print(f"note: {note}", file=sys.stderr)
print(report.claims[["claim_id", "variant", "value", "verdict", "n"]].to_string(), file=sys.stderr)
