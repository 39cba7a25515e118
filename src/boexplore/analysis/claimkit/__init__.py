"""The claim machinery, knowing no paper: paired units and tests, the decision rule, power,
verdict vocabulary and text, claim parts, budget prefixes and Markdown tables.

Each paper's claims (``analysis.claims``, ``analysis.paper2_claims``, ``analysis.uses_claims``)
are declarations over it: a claim is its sentence, its statistic and the parts it decides.
"""
