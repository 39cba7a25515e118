"""Exploration metrics on the platforms BO users already run (our extension, not the papers').

``integrations.optuna`` measures an Optuna study: live, through a callback and a wrapped
objective, and after the fact, from the study's storage. It needs the ``optuna`` extra and
the metrics (numpy and scipy), not torch. Importing this package imports no platform.
"""
