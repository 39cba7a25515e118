"""boexplore.parametric (being built)."""
