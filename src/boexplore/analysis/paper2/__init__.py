"""Paper 2's claims P2-C1 … C5: the experiments' run files aggregated into tables (E1-E4)
and the claims decided on them with the verdict vocabulary of ``analysis.claimkit``."""
