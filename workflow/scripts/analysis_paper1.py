"""Snakemake entry point: every paper-1 analysis table and the claims tables."""

import sys
from pathlib import Path

import pandas as pd

from boexplore.analysis.boundary import boundary_table
from boexplore.analysis.paper1.claims_release import released_claims, write_released_claims
from boexplore.analysis.paper1.sensitivity import boundary_labels
from boexplore.analysis.pipeline import run_analysis, write_tables
from boexplore.analysis.variants import activity_table, mechanism_activity_from_files
from boexplore.io import atomic_write_text
from boexplore.pipeline.io import setup_job_logging
from boexplore.pipeline.not_run import with_costs

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
cfg = result.config
# P1-C7: per problem and method, in how many seeds the trust region / RAASP acted
dims = result.final.drop_duplicates("problem").set_index("problem")["dim"].to_dict()
acted = activity_table(result.activity, dims, float(cfg["c7_min_active_frac"]))
atomic_write_text(acted.to_csv(index=False, lineterminator="\n"), snakemake.output.claims_activity)
boundary = boundary_table(
    runs,
    boundary_labels(cfg),
    int(cfg["low_d_max"]),
    int(cfg["high_d_min"]),
    float(cfg["robustness"]["boundary_tol"]),
    per_problem=True,  # GP-prior shares compare on the problems every prior ran
)
released = released_claims(result, boundary)
# claims a CPU ceiling left out say what deciding them would cost (config `not_run`)
released.report.claims = with_costs(released.claims, snakemake.config, released.report.parts)
write_released_claims(
    released,
    snakemake.output.claims_csv,
    snakemake.output.claims_md,
    snakemake.output.claims_parts,
    snakemake.output.claims_units,
    snakemake.output.claims_budget,
    snakemake.output.claims_sensitivity,
)
for note in result.notes:
    print(f"note: {note}", file=sys.stderr)
cols = ["claim_id", "variant", "value", "verdict", "holds_from", "stability", "lopo_changes"]
print(released.claims[cols].to_string(), file=sys.stderr)
