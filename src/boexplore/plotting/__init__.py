"""boexplore.plotting (being built)."""
