"""Stage functions behind the Snakemake scripts (each script is one call into here).

Keeping the logic importable means a change here does not invalidate finished
BO runs (Snakemake only tracks the thin scripts) and every stage is testable
without Snakemake.
"""
