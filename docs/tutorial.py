"""Tutorial: score your own BoTorch loop's exploration live, then place it among reference methods.

Run it with ``python docs/tutorial.py`` (about 10-20 s on a laptop CPU). It

1. runs a plain BoTorch loop (SingleTaskGP + LogEI on the 2-d Branin function) that
   knows nothing about boexplore,
2. feeds every new point to an ``ExplorationTracker`` and prints the normalised OTSD
   (tour length of the observations divided by Psi(d, t); higher = more exploration)
   and the observation entropy (OE) after each iteration,
3. saves the trace and, if a finished workflow run is available (``--reference``,
   default ``results/smoke``: ``snakemake --cores 2 --configfile config/smoke.yaml``),
   places it among that run's methods with ``boexplore compare``.

Everything below is ordinary BoTorch; the three ``tracker`` lines are all a BO loop needs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from botorch.acquisition import LogExpectedImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.optim import optimize_acqf
from botorch.test_functions import Branin
from gpytorch.mlls import ExactMarginalLogLikelihood
from torch.quasirandom import SobolEngine

from boexplore.metrics import ExplorationTracker


def bo_loop(budget: int, n_init: int, seed: int, tracker: ExplorationTracker) -> np.ndarray:
    """Maximise -Branin on the unit square; every evaluated point also goes to ``tracker``."""
    torch.manual_seed(seed)
    f = Branin(negate=True)
    lo, hi = f.bounds[0], f.bounds[1]

    def objective(x01: torch.Tensor) -> torch.Tensor:
        return f(lo + (hi - lo) * x01).unsqueeze(-1)

    X = SobolEngine(dimension=2, scramble=True, seed=seed).draw(n_init).to(torch.double)
    Y = objective(X)
    tracker.update(X.numpy())  # initial design: the tracker takes (n, d) arrays too
    unit = torch.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=torch.double)
    print(f"{'t':>3} {'best f':>9} {'OTSD/Psi':>9} {'OE':>8}")
    while X.shape[0] < budget:
        gp = SingleTaskGP(X, (Y - Y.mean()) / Y.std())
        fit_gpytorch_mll(ExactMarginalLogLikelihood(gp.likelihood, gp))
        acq = LogExpectedImprovement(gp, best_f=((Y - Y.mean()) / Y.std()).max())
        x_next, _ = optimize_acqf(acq, bounds=unit, q=1, num_restarts=4, raw_samples=64)
        X, Y = torch.cat([X, x_next]), torch.cat([Y, objective(x_next)])
        tracker.update(x_next.numpy()[0])  # one new point: O(t d) work
        print(
            f"{X.shape[0]:3d} {-Y.max().item():9.4f} "
            f"{tracker.otsd_normalized:9.4f} {tracker.entropy:8.3f}"
        )
    return X.numpy()


def main(argv: list[str] | None = None) -> int:
    """Run the loop, write the trace, and compare it with a reference run if there is one."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=16, help="evaluations incl. initial design")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("tutorial_trace.csv"))
    ap.add_argument("--reference", type=Path, default=Path("results/smoke"))
    ap.add_argument("--problem", default="branin", help="problem label in the reference run")
    ap.add_argument("--figure", type=Path, default=Path("tutorial_compare.png"))
    args = ap.parse_args(argv)
    torch.set_num_threads(1)

    tracker = ExplorationTracker(d=2)
    X = bo_loop(args.budget, n_init=4, seed=args.seed, tracker=tracker)
    history = pd.DataFrame(
        {"otsd_norm": tracker.otsd_normalized_history, "oe": tracker.entropy_history}
    )
    print(f"\nfinal: OTSD/Psi = {history.otsd_norm.iloc[-1]:.4f}, OE = {history.oe.iloc[-1]:.3f}")
    pd.DataFrame(X, columns=["x_0", "x_1"]).to_csv(args.out, index=False)
    print(f"trace written to {args.out}")

    if not (args.reference / "tables" / "metrics.parquet").exists():
        print(
            f"\nno finished run at {args.reference}: run "
            "`snakemake --cores 2 --configfile config/smoke.yaml`, then "
            f"`boexplore compare {args.out} --problem branin --dim 2 --reference results/smoke`"
        )
        return 0
    from boexplore.cli import main as boexplore

    print(f"\n$ boexplore compare {args.out} --problem {args.problem} --dim 2 ...")
    return boexplore(
        ["compare", str(args.out), "--problem", args.problem, "--dim", "2",
         "--reference", str(args.reference), "--figure", str(args.figure), "--oe-reps", "8"]
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
