"""The cost model: what a BO job costs in CPU time and memory, and what it asks SLURM for.

Knows methods and calibration coefficients, not configs: ``workflow_config`` and ``pipeline``
resolve a config's cells and call it.
"""
