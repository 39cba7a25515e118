"""boexplore.problems (being built)."""
