"""Analysis of finished runs: paper 1 (summaries, taxonomy, OTSD-OE agreement, performance,
variants, tours, claims with power needs) and paper 2 (``paper2_summary``, ``paper2_claims``,
``paper2_tables``); shared statistics in ``stats`` and verdict rules in ``verdict``."""
