"""boexplore.metrics (being built)."""
