"""CPU time of one GP-based proposal on the combinatorial problems (the tier's cost model).

``python -m boexplore.bench.discrete_steps --out src/boexplore/cost/discrete_steps.csv``

For every problem of the ``combinatorial`` section's defaults, at n = 20, 60 and 100 uniform
points, the CPU seconds (``time.process_time``, one thread) of one ``discrete.gp.propose`` call
(GP fit + acquisition optimisation) of LogEI (the mixed alternating optimiser, which UCB, PI
and greedy share) and of TS (fit + a joint sample on the candidate set). ``cost.discrete``
interpolates these rows in n to price a run; measured on a shared machine, so a rerun on
another machine gives other numbers.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from boexplore.discrete.gp import propose
from boexplore.discrete.methods import parse_discrete_method
from boexplore.problems import get_problem
from boexplore.schema import schema_defaults

SIZES = (20, 60, 100)
METHODS = ("logei", "ts")


def measure(sizes=SIZES, methods=METHODS) -> pd.DataFrame:
    """One row per (problem, n, method): CPU seconds of one proposal."""
    rows = []
    for label, entry in schema_defaults("combinatorial")["problems"].items():
        problem = get_problem(entry["name"], dim=entry.get("dim"))
        for n in sizes:
            rng = np.random.default_rng(n)
            X = problem.sample_raw(rng, n)
            y = problem.evaluate_raw(X)
            for m in methods:
                t = time.process_time()
                propose(problem, parse_discrete_method(m), X, y, np.random.default_rng(0))
                cpu = time.process_time() - t
                rows.append({"problem": entry["name"], "dim": problem.dim, "n": n, "method": m,
                             "cpu_s": round(cpu, 3)})  # fmt: skip
                print(label, n, m, f"{cpu:.2f}", flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="CSV to write")
    args = parser.parse_args(argv)
    measure().to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
