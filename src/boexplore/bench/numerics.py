"""What pinning the numerics costs: CPU seconds per BO iteration under each profile.

``python -m boexplore.bench.numerics --out docs/determinism-cost.csv``

Each cell runs one BO trace (``boexplore run``, one thread) in a fresh process under a
numerics profile and reads the trace's own fit / acquisition seconds (CPU clock), so the
figure is the engine's per-iteration cost and not process start-up. Profiles alternate
within each repeat, so a machine that gets busier during the benchmark biases no profile.
The final best value of every trace is printed next to its cost: pinning must not change
what the optimiser finds beyond what a different rounding does.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

#: (problem, dim, method, budget) cells: a cheap low-d cell and a BLAS-heavy high-d one.
DEFAULT_CELLS: tuple[tuple[str, int, str, int], ...] = (
    ("hartmann", 6, "logei", 30),
    ("ackley", 50, "logei", 40),
    ("ackley", 50, "ts", 40),
)


def run_cell(
    problem: str, dim: int, method: str, budget: int, seed: int, profile: str
) -> dict[str, float | str | int]:
    """One trace under ``profile``; mean CPU seconds per BO iteration and the final best."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "trace.parquet"
        cmd = [
            sys.executable, "-m", "boexplore.cli", "run", "--problem", problem, "--dim",
            str(dim), "--method", method, "--seed", str(seed), "--budget", str(budget),
            "--out", str(out), "--quiet", "--numerics", profile, "--settings",
            json.dumps({"clock": "cpu"}),
        ]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True)
        trace = pd.read_parquet(out)
    bo = trace[~trace["is_initial"]].drop_duplicates("iteration")
    return {
        "problem": problem,
        "dim": dim,
        "method": method,
        "budget": budget,
        "seed": seed,
        "profile": profile,
        "cpu_s_per_iter": float((bo["fit_seconds"] + bo["acq_seconds"]).mean()),
        "final_best": float(trace["best_so_far"].iloc[-1]),
    }


def summarise(table: pd.DataFrame, base: str = "unpinned") -> pd.DataFrame:
    """Per cell and profile: mean CPU s / iteration, ratio to ``base``, mean final best."""
    keys = ["problem", "dim", "method"]
    out = table.groupby([*keys, "profile"], as_index=False).agg(
        cpu_s_per_iter=("cpu_s_per_iter", "mean"), final_best=("final_best", "mean")
    )
    ref = out[out["profile"] == base].set_index(keys)["cpu_s_per_iter"]
    out["ratio_to_" + base] = [
        row.cpu_s_per_iter / ref.get(tuple(getattr(row, k) for k in keys), float("nan"))
        for row in out.itertuples()
    ]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", nargs="+", default=["unpinned", "portable"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--out", type=Path, help="CSV of every trace's cost")
    args = parser.parse_args(argv)
    rows = []
    for seed in args.seeds:
        for problem, dim, method, budget in DEFAULT_CELLS:
            for profile in args.profiles:
                rows.append(run_cell(problem, dim, method, budget, seed, profile))
                print(json.dumps(rows[-1]), flush=True)
    table = pd.DataFrame(rows)
    if args.out:
        table.to_csv(args.out, index=False)
    print(summarise(table).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
