"""boexplore.analysis (being built)."""
