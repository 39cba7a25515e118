"""Timing table of the BO engine: seconds per iteration (GP fit, acquisition) per method, d, n.

``python -m boexplore.bench.timing --dims 2 10 60 180 --n 50 --iters 2 --out docs/bo_timings.md``

Each cell runs ``run_bo`` on Ackley(d) with an ``n``-point Sobol initial design
followed by ``iters`` BO iterations and reports the mean fit and acquisition
seconds of those iterations (single thread). ``--warm-start`` adds a study of
warm-started vs cold GP fits (fit seconds, final MLL). Results are appended to
a CSV as they come (so a long run can be watched / interrupted) and the
Markdown table is rewritten after every cell.
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import torch

DEFAULT_METHODS = (
    "random",
    "sobol",
    "ucb(beta=0.1)",
    "ucb(beta=16)",
    "logei",
    "pi",
    "logpi",
    "kg",
    "mes",
    "gibbon",
    "jes",
    "pes",
    "ts",
    "greedy",
)


def time_cell(
    method: str, dim: int, n: int, iters: int, seed: int, problem_name: str, **settings
) -> dict:
    """Mean fit / acquisition seconds per iteration of ``method`` with ``n`` observed points."""
    from boexplore.bo.loop import run_bo
    from boexplore.bo.methods import parse_method
    from boexplore.problems import get_problem

    problem = get_problem(problem_name, dim)
    q = parse_method(method).q
    start = time.perf_counter()
    trace = run_bo(problem, method, seed=seed, budget=n + iters * q, n_init=n, **settings)
    total = time.perf_counter() - start
    it = trace[trace["iteration"] > 0].drop_duplicates("iteration")
    fallbacks = sorted({f for f in it["fallback"] if f})
    return {
        "method": method,
        "dim": dim,
        "n": n,
        "iters": len(it),
        "fit_s": float(it["fit_seconds"].mean()),
        "acq_s": float(it["acq_seconds"].mean()),
        "total_s": total,
        "fallback": ";".join(fallbacks),
    }


def warm_start_study(dim: int, n: int, steps: int, seed: int, problem_name: str) -> dict:
    """Fit CPU seconds and final MLL of warm-started vs cold fits after adding one point at a time."""
    from boexplore.bo.loop import sobol_unit
    from boexplore.bo.model import fit_gp, hyper_state
    from boexplore.problems import get_problem

    problem = get_problem(problem_name, dim)
    X = sobol_unit(dim, seed, 0, n + steps)
    y = problem.evaluate(X)
    Xt = torch.as_tensor(X, dtype=torch.float64)
    Yt = torch.as_tensor(y, dtype=torch.float64).unsqueeze(-1)
    model, _ = fit_gp(Xt[:n], Yt[:n])
    state = hyper_state(model)
    rows = {"warm_s": [], "cold_s": [], "warm_mll": [], "cold_mll": []}
    for k in range(1, steps + 1):
        m = n + k
        t0 = time.process_time()
        warm, info_w = fit_gp(Xt[:m], Yt[:m], warm_state=state)
        t1 = time.process_time()
        _, info_c = fit_gp(Xt[:m], Yt[:m])
        t2 = time.process_time()
        state = hyper_state(warm)
        rows["warm_s"].append(t1 - t0)
        rows["cold_s"].append(t2 - t1)
        rows["warm_mll"].append(info_w.mll)
        rows["cold_mll"].append(info_c.mll)
    out = {"dim": dim, "n": n, "steps": steps}
    out.update({k: float(np.mean(v)) for k, v in rows.items()})
    return out


def to_markdown(df: pd.DataFrame, title: str, notes: str) -> str:
    """Markdown table: one row per method, ``fit/acq`` seconds per (n, d) column."""
    lines = [f"# {title}", "", notes, ""]
    cells = sorted({(int(r.n), int(r.dim)) for r in df.itertuples()})
    header = "| method | " + " | ".join(f"n={n} d={d}" for n, d in cells) + " |"
    lines += [header, "|---" * (len(cells) + 1) + "|"]
    for method in dict.fromkeys(df["method"]):
        sub = df[df["method"] == method]
        vals = []
        for n, d in cells:
            r = sub[(sub["n"] == n) & (sub["dim"] == d)]
            if r.empty:
                vals.append("")
            else:
                r0 = r.iloc[-1]
                flag = (
                    f" ({r0['fallback']})"
                    if isinstance(r0["fallback"], str) and r0["fallback"]
                    else ""
                )
                if pd.isna(r0["fit_s"]) or pd.isna(r0["acq_s"]):  # the method raised
                    vals.append(f"not timed: {r0['fallback'] or 'no iteration ran'}")
                else:
                    vals.append(f"{r0['fit_s']:.2f} / {r0['acq_s']:.2f}{flag}")
        lines.append(f"| {method} | " + " | ".join(vals) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """CLI entry point (see module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 10, 50, 180])
    ap.add_argument("--n", type=int, nargs="+", default=[100, 300])
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS))
    ap.add_argument("--iters", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--problem", default="ackley")
    ap.add_argument("--num-restarts", type=int, default=10)
    ap.add_argument("--raw-samples", type=int, default=512)
    ap.add_argument("--acq-timeout", type=float, default=None)
    ap.add_argument("--csv", type=Path, default=Path("results/bench_bo.csv"))
    ap.add_argument("--out", type=Path, default=None, help="Markdown table output")
    ap.add_argument("--pairs", nargs="*", default=None, help="restrict to n:d pairs, e.g. 300:2")
    ap.add_argument("--warm-start", action="store_true", help="also run the warm-start study")
    args = ap.parse_args(argv)

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    logging.basicConfig(level=logging.ERROR)
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    settings = {
        "num_restarts": args.num_restarts,
        "raw_samples": args.raw_samples,
        "acq_timeout": args.acq_timeout,
        "clock": "cpu",
    }
    pairs = [(n, d) for n in args.n for d in args.dims]
    if args.pairs:
        allowed = {tuple(int(v) for v in p.split(":")) for p in args.pairs}
        pairs = [p for p in pairs if p in allowed]
    results: list[dict] = []
    notes = (
        f"CPU seconds per BO iteration, `fit / acq` (mean over {args.iters} iterations), "
        f"problem {args.problem}, q=1, one thread, num_restarts={args.num_restarts}, "
        f"raw_samples={args.raw_samples}, acq_timeout={args.acq_timeout}; "
        "method defaults from `boexplore methods`. Generated by `python -m boexplore.bench.timing`."
    )
    for n, d in pairs:
        for method in args.methods:
            try:
                row = time_cell(method, d, n, args.iters, args.seed, args.problem, **settings)
            except Exception as exc:  # record and continue: a table with holes beats none
                row = {"method": method, "dim": d, "n": n, "iters": 0, "fit_s": np.nan,
                       "acq_s": np.nan, "total_s": np.nan,
                       "fallback": f"error:{type(exc).__name__}"}  # fmt: skip
            results.append(row)
            print(row, flush=True)
            pd.DataFrame([row]).to_csv(
                args.csv, mode="a", header=not args.csv.exists(), index=False
            )
            if args.out is not None:
                args.out.write_text(to_markdown(pd.DataFrame(results), "BO engine timings", notes))
    if args.warm_start:
        ws = [warm_start_study(d, n, 3, args.seed, args.problem) for n, d in pairs]
        wdf = pd.DataFrame(ws)
        print(wdf.to_string(index=False), flush=True)
        if args.out is not None:
            with open(args.out, "a") as fh:
                fh.write("\n## Warm start vs cold GP fit (mean over 3 one-point updates)\n\n")
                fh.write(wdf.to_markdown(index=False) if _has_tabulate() else wdf.to_string())
                fh.write("\n")
    return 0


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    raise SystemExit(main())
