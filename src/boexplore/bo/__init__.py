"""boexplore.bo (being built)."""
