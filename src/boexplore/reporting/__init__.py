"""Helpers for the Snakemake HTML report: claims tables as HTML, tidy job parameters."""
