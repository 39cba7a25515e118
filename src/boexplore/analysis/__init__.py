"""Analysis of finished runs: paper 1's analyses here (summaries, taxonomy, OTSD-OE agreement,
performance, variants, tours), each paper's claims as declarations in ``paper1``, ``paper2``
and ``uses`` over the paper-agnostic claim machinery of ``claimkit``."""
