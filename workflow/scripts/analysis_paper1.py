"""Snakemake entry point: every paper-1 analysis table and the claims table."""

import sys
from pathlib import Path

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

import pandas as pd  # noqa: E402

from boexplore.analysis.claims import build_claims, write_claims  # noqa: E402
from boexplore.analysis.pipeline import run_analysis, write_tables  # noqa: E402

metrics = pd.read_parquet(snakemake.input.metrics)
result = run_analysis(metrics, dict(snakemake.params.analysis))
written = write_tables(result, Path(snakemake.output.claims_csv).parent)
for name, path in written.items():
    expected = Path(getattr(snakemake.output, name))
    if expected != path:
        raise RuntimeError(f"table {name} written to {path}, rule expects {expected}")
claims = build_claims(result)
write_claims(claims, snakemake.output.claims_csv, snakemake.output.claims_md)
for note in result.notes:
    print(f"note: {note}", file=sys.stderr)
print(claims[["claim_id", "value", "verdict", "n"]].to_string(), file=sys.stderr)
