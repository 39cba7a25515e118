"""Predicted CPU time of the jobs beyond the box (the ``combinatorial`` section; our extension).

A GP-based run costs the sum over its proposals (n = n_init .. budget - 1 points) of one
proposal's CPU seconds at n, interpolated linearly in n between the rows measured by
``python -m boexplore.bench.discrete_steps`` (``discrete_steps.csv``: the problem's own rows, TS
rows for ``ts``, LogEI rows for the methods that share the mixed alternating optimiser; kept
flat beyond the measured n). A problem or dimension without rows takes the most expensive
measured problem's, a pessimistic stand-in. Model-free runs and scoring cost their process
start and imports (measured: 0.7 CPU-s for numpy / pandas / metrics, 2.1 with torch and BoTorch)
plus a margin; their evaluations are below a millisecond each.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

import numpy as np

from boexplore.discrete.methods import parse_discrete_method

STEPS_FILE = Path(__file__).with_name("discrete_steps.csv")
#: CPU seconds of a job besides its proposals: process start, imports, I/O.
GP_RUN_OVERHEAD_S, MODEL_FREE_RUN_S, SCORE_S = 4.0, 2.0, 2.0
#: Peak memory of any job of the section (MB): a GP on at most a few hundred points.
MEM_MB = 1500.0


@functools.cache
def _rows() -> dict[tuple[str, int, str], tuple[np.ndarray, np.ndarray]]:
    table: dict[tuple[str, int, str], list[tuple[int, float]]] = {}
    with STEPS_FILE.open() as fh:
        for row in csv.DictReader(fh):
            key = (row["problem"], int(row["dim"]), row["method"])
            table.setdefault(key, []).append((int(row["n"]), float(row["cpu_s"])))
    return {
        k: (np.array([n for n, _ in sorted(v)]), np.array([c for _, c in sorted(v)]))
        for k, v in table.items()
    }


def step_seconds(problem: str, dim: int, method_spec: str, n: np.ndarray) -> np.ndarray:
    """CPU seconds of one proposal at each n (GP-based methods)."""
    kind = "ts" if parse_discrete_method(method_spec).base == "ts" else "logei"
    rows = _rows()
    key = (problem, int(dim), kind)
    if key not in rows:
        worst = max((k for k in rows if k[2] == kind), key=lambda k: rows[k][1].max())
        key = worst
    ns, cpu = rows[key]
    return np.interp(np.asarray(n, dtype=float), ns, cpu)


def run_seconds(problem: str, dim: int, method_spec: str, budget: int, n_init: int) -> float:
    """Predicted CPU seconds of one run (one seed)."""
    if not parse_discrete_method(method_spec).uses_model:
        return MODEL_FREE_RUN_S
    n = np.arange(int(n_init), int(budget))
    return GP_RUN_OVERHEAD_S + float(step_seconds(problem, dim, method_spec, n).sum())
