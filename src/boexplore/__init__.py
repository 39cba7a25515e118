"""boexplore: exploration metrics for Bayesian optimization and a replication pipeline.

Subpackages: ``metrics`` (OTSD, OE, bounds, tracker), ``problems`` (benchmarks),
``bo`` (BoTorch loop and acquisition registry), ``parametric`` (paper 2 policies),
``analysis`` (aggregation, taxonomy, claims) and ``plotting`` (one function per figure).
"""

__version__ = "0.1.0"
