"""Paper 1's claims P1-C1 … C8 (and P1-X1), declared over ``analysis.claimkit``, and their
re-decisions: budget prefixes, rank test, seed bootstrap, leave one problem out, settings."""
