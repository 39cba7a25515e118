"""Benchmarks: timing, fidelity and speed-at-equal-quality studies (print tables, no asserts)."""
