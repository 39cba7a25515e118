"""Engine-fidelity benchmark: does the acquisition step reach the acquisition maximum?

``python -m boexplore.bench.fidelity timeout`` fits a GP on n uniform points of
Hartmann-6 and maximises LogEI three ways with the same seed: the engine's
``propose`` (no soft timeout), plain ``optimize_acqf``, and ``optimize_acqf``
with ``timeout_sec`` (what the engine passed before). It prints the LogEI value
reached and the seconds each took: the soft timeout is what degraded LogEI.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from botorch.acquisition import LogExpectedImprovement
from botorch.optim import optimize_acqf

from boexplore.bo.acquisition import propose
from boexplore.bo.methods import parse_method
from boexplore.bo.model import fit_gp
from boexplore.bo.settings import BOSettings
from boexplore.problems import get_problem


def timeout_row(n: int, draw: int, d: int = 6, timeout: float = 60.0) -> dict[str, float]:
    """LogEI reached and seconds for engine / plain / soft-timeout optimisation (one draw)."""
    problem = get_problem("hartmann", d)
    X = torch.as_tensor(np.random.default_rng(draw).random((n, d)), dtype=torch.float64)
    Y = torch.as_tensor(problem.evaluate(X.numpy()), dtype=torch.float64).reshape(-1, 1)
    model, _ = fit_gp(X, Y)
    bounds = torch.stack([torch.zeros(d), torch.ones(d)]).to(torch.float64)
    settings = BOSettings.from_kwargs(num_restarts=10, raw_samples=1024, acq_timeout=600)
    acqf = LogExpectedImprovement(model, best_f=float(Y.max()))
    options = {"maxiter": settings.acq_maxiter}
    out: dict[str, float] = {"n": n, "draw": draw}

    def value(x: torch.Tensor) -> float:
        with torch.no_grad():
            return float(acqf(x.reshape(1, 1, d)))

    runs = {
        "engine": lambda: propose(
            parse_method("logei"), model, X, Y, bounds, 1, settings,
            np.random.default_rng(0), draw,
        )[0],
        "plain": lambda: optimize_acqf(
            acqf, bounds, 1, 10, raw_samples=1024, options=options
        )[0],
        "soft_timeout": lambda: optimize_acqf(
            acqf, bounds, 1, 10, raw_samples=1024, options=options, timeout_sec=timeout
        )[0],
    }  # fmt: skip
    for name, fn in runs.items():
        torch.manual_seed(draw)
        t0 = time.process_time()
        x = fn()
        out[f"{name}_s"] = time.process_time() - t0
        out[f"{name}_logei"] = value(x)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the timeout table (markdown)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["timeout"])
    p.add_argument("--n", type=int, nargs="+", default=[50, 100, 300])
    p.add_argument("--draws", type=int, default=2)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    print(
        "| n | draw | LogEI engine | LogEI plain | LogEI soft timeout | CPU s engine / plain / soft |"
    )
    print("|---|---|---|---|---|---|")
    for n in args.n:
        for draw in range(args.draws):
            r = timeout_row(n, draw)
            print(
                f"| {n} | {draw} | {r['engine_logei']:.4g} | {r['plain_logei']:.4g} | "
                f"{r['soft_timeout_logei']:.4g} | {r['engine_s']:.2f} / {r['plain_s']:.2f} / "
                f"{r['soft_timeout_s']:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
