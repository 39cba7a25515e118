"""Snakemake job: one claims CSV rendered as an HTML table for the report."""

import sys

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

from boexplore.reporting.claims_html import write_claims_html  # noqa: E402

write_claims_html(snakemake.input[0], snakemake.output[0], snakemake.params.title)
