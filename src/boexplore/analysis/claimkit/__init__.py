"""The claim machinery, knowing no paper: paired units and tests, the decision rule, power,
verdict vocabulary and text, claim parts, budget prefixes and Markdown tables.

Each paper's claims (``analysis.paper1``, ``analysis.paper2``, ``analysis.uses``)
are declarations over it: a claim is its sentence, its statistic and the parts it decides.
"""
