"""Paper 1's claimed uses of OTSD (P1-U1 … U3: diagnosis, early stopping, portfolio): per-run
inputs from the diagnostics room and the claims rows, decided on held-out problems."""
