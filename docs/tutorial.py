"""Tutorial: score your own BoTorch loop's exploration live, then place it among reference methods.

Run it with ``python docs/tutorial.py`` (about 10-20 s on a laptop CPU). It

1. runs a plain BoTorch loop (SingleTaskGP + LogEI on the 2-d Branin function) that
   knows nothing about boexplore,
2. feeds every new point to an ``ExplorationCallback`` (an ``ExplorationTracker`` plus the
   exploration monitor and the early-stopping rule, docs/diagnostics.md) and prints the
   normalised OTSD (tour length of the observations divided by Psi(d, t); higher = more
   exploration), its ratio to uniform random points, the OE and the monitor's state
   (over-exploring / balanced / under-exploring) after each iteration; with ``--stop`` the
   loop ends where the stop rule fires,
3. saves the trace, replays it with ``boexplore diagnose`` (per-step timeline, figure, the
   stop point the rule would have chosen) and, if a finished workflow run is available
   (``--reference``, default ``results/smoke``: ``snakemake --cores 2 --configfile
   config/smoke.yaml``), places it among that run's methods with ``boexplore compare``.

Everything below is ordinary BoTorch; the three ``callback`` lines are all a BO loop needs.
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

from boexplore.diagnostics import ExplorationCallback, StopRule


def bo_loop(
    budget: int, n_init: int, seed: int, callback: ExplorationCallback, stop: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Maximise -Branin on the unit square; every evaluation also goes to ``callback``."""
    torch.manual_seed(seed)
    f = Branin(negate=True)
    lo, hi = f.bounds[0], f.bounds[1]

    def objective(x01: torch.Tensor) -> torch.Tensor:
        return f(lo + (hi - lo) * x01).unsqueeze(-1)

    X = SobolEngine(dimension=2, scramble=True, seed=seed).draw(n_init).to(torch.double)
    Y = objective(X)
    callback.observe(X.numpy(), Y.numpy().ravel())  # initial design: (n, d) arrays work too
    tracker = callback.monitor.tracker  # the plain ExplorationTracker inside
    unit = torch.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=torch.double)
    print(f"{'t':>3} {'best f':>9} {'OTSD/Psi':>9} {'x random':>8} {'OE':>8}  state")
    while X.shape[0] < budget:
        gp = SingleTaskGP(X, (Y - Y.mean()) / Y.std())
        fit_gpytorch_mll(ExactMarginalLogLikelihood(gp.likelihood, gp))
        acq = LogExpectedImprovement(gp, best_f=((Y - Y.mean()) / Y.std()).max())
        x_next, _ = optimize_acqf(acq, bounds=unit, q=1, num_restarts=4, raw_samples=64)
        X, Y = torch.cat([X, x_next]), torch.cat([Y, objective(x_next)])
        step = callback.observe(x_next.numpy()[0], Y[-1].item())  # one new point: O(t d) work
        print(
            f"{X.shape[0]:3d} {-Y.max().item():9.4f} {step.otsd_norm:9.4f} "
            f"{step.ratio:8.2f} {tracker.entropy:8.3f}  {step.state or '-'}"
            + ("  <- stop rule fires" if step.stop else "")
        )
        if stop and step.stop:
            break
    return X.numpy(), Y.numpy().ravel()


def main(argv: list[str] | None = None) -> int:
    """Run the loop, write the trace, and compare it with a reference run if there is one."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=16, help="evaluations incl. initial design")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("tutorial_trace.csv"))
    ap.add_argument("--reference", type=Path, default=Path("results/smoke"))
    ap.add_argument("--problem", default="branin", help="problem label in the reference run")
    ap.add_argument("--figure", type=Path, default=Path("tutorial_compare.png"))
    ap.add_argument("--stop", action="store_true", help="end the loop where the stop rule fires")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)

    callback = ExplorationCallback(d=2, n_init=4, stop_rule=StopRule())
    X, Y = bo_loop(args.budget, n_init=4, seed=args.seed, callback=callback, stop=args.stop)
    tracker = callback.monitor.tracker
    history = pd.DataFrame(
        {"otsd_norm": tracker.otsd_normalized_history, "oe": tracker.entropy_history}
    )
    print(f"\nfinal: OTSD/Psi = {history.otsd_norm.iloc[-1]:.4f}, OE = {history.oe.iloc[-1]:.3f}")
    trace = pd.DataFrame(X, columns=["x_0", "x_1"]).assign(y=Y)
    trace.to_csv(args.out, index=False)
    print(f"trace written to {args.out}")
    from boexplore.cli import main as boexplore

    timeline = args.out.with_name(args.out.stem + "_timeline.csv")
    print(f"\n$ boexplore diagnose {args.out} --n-init 4 --method logei ...")
    boexplore(
        ["diagnose", str(args.out), "--n-init", "4", "--method", "logei", "-o", str(timeline),
         "--figure", str(args.out.with_name(args.out.stem + "_diagnose.png"))]
    )  # fmt: skip

    if not (args.reference / "tables" / "metrics.parquet").exists():
        print(
            f"\nno finished run at {args.reference}: run "
            "`snakemake --cores 2 --configfile config/smoke.yaml`, then "
            f"`boexplore compare {args.out} --problem branin --dim 2 --reference results/smoke`"
        )
        return 0
    print(f"\n$ boexplore compare {args.out} --problem {args.problem} --dim 2 ...")
    return boexplore(
        ["compare", str(args.out), "--problem", args.problem, "--dim", "2",
         "--reference", str(args.reference), "--figure", str(args.figure), "--oe-reps", "8"]
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
