"""qKG on the CPU vs on a GPU, per step, under the gain rule of :mod:`boexplore.bench.kg`.

``python -m boexplore.bench.kg_device --problems hartmann:6 ackley:60 --seeds 4
--out docs/kg-gpu.md`` (the arguments of :mod:`boexplore.bench.kg`; sizes default to
n = 100 / 300 / 500; ``--sequential``, ``--warm`` and ``--control`` are refused: the states are
Sobol and the control column is always there). On a machine without a usable GPU it exits
with a message before anything is written.

For each state (problem, n, seed: the first n points of the state's Sobol design) the
engine's GP is fitted twice on the same data, on the CPU and on the GPU (what a
``bo.device: cuda`` run does: fit and acquisition on the device, float64), and one qKG step
with the current settings (``COLUMNS["current"]``) runs on each through the engine's proposal
code, next to the random-point control. The GPU runs under the numerics a GPU job gets
(:func:`boexplore.bo.device.run_device`: deterministic algorithms). Every chosen point is
scored by the reference KG on the CPU state, the one yardstick of every column.

Time per step: the CPU column's CPU seconds on one thread (``time.process_time``, the unit of
the cost model's CPU-hours) against the GPU column's wall seconds with the device synchronised
(the unit of GPU-hours); both clocks are recorded for both columns, and so are the GP-fit
times. The speed-up per (problem, n) is the candidate for the cost model's
``gpu.speedup.kg`` (``pipeline/gpu_cost.py``).

Decision (bench.kg's rule, fixed before any GPU step ran): per problem, the control must fail
(its gain-ratio lower end < ``GAIN_RATIO_FLOOR``), the GPU column's gain ratio over the CPU
column must have its lower 95 % end >= ``GAIN_RATIO_FLOOR``, and its mean time per step must
be below the CPU column's (speed-up > 1) -- in every problem. Only then do the accelerated
methods go to a GPU in a config (``bo.by_method.<label>.device: cuda``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boexplore.bench.kg import (
    COLUMNS,
    GAIN_RATIO_FLOOR,
    RANDOM_POINT,
    REFERENCE,
    STATE,
    _json_x,
    _unit_bounds,
    build_parser,
    kg_step,
    max_posterior_mean,
    optimizer_seeds,
    reference_kg,
    warm_decision,
)
from boexplore.io import atomic_write_text

#: State sizes of the GPU comparison (issue 41).
DEVICE_SIZES: tuple[int, ...] = (100, 300, 500)
DEFAULT_OUT = Path("docs/kg-gpu.md")
DEFAULT_TITLE = "qKG step: CPU vs GPU"
CPU, GPU = "cpu", "cuda"
CONTROL = {"fantasies": 0, "num_restarts": 0, "raw_samples": 0}


def cuda_missing() -> str | None:
    """The message a GPU run prints on a machine without a usable GPU (None: it has one)."""
    from boexplore.bo.device import cuda_unavailable_reason

    reason = cuda_unavailable_reason()
    if reason is None:
        return None
    return (
        f"bench.kg_device needs a CUDA GPU, but {reason}; run it on a GPU node "
        "(nothing was measured or written)"
    )


def _sync(device: str) -> None:
    if device == GPU:
        import torch

        torch.cuda.synchronize()


def fit_on(X: np.ndarray, y: np.ndarray, device: str) -> tuple[Any, float]:
    """The engine's GP fitted on ``device`` (float64) and the fit's wall seconds."""
    import torch

    from boexplore.bo.model import fit_gp

    X_t = torch.as_tensor(X, dtype=torch.float64, device=device)
    Y_t = torch.as_tensor(y, dtype=torch.float64, device=device).unsqueeze(-1)
    _sync(device)
    start = time.perf_counter()
    model, _ = fit_gp(X_t, Y_t)
    _sync(device)
    return model, time.perf_counter() - start


def timed_step(model: Any, bounds: Any, settings: dict[str, Any], seed: int, device: str
               ) -> tuple[Any, float, float]:  # fmt: skip
    """One step of ``bench.kg.kg_step`` on ``device``: (point on the CPU, CPU s, wall s)."""
    _sync(device)
    start = time.perf_counter()
    X, cpu = kg_step(model, bounds, settings, seed)
    _sync(device)
    return X.detach().cpu(), cpu, time.perf_counter() - start


def run_state(problem_name: str, dim: int, n: int, seed: int, settings: dict[str, Any],
              reference: bool = True, opt_seeds: int = 1,
              accelerator: str = GPU) -> list[dict[str, Any]]:  # fmt: skip
    """The CPU, GPU and control columns on one Sobol state (module docstring).

    ``accelerator``: the device of the GPU column (``cpu`` only to test this code where there
    is no GPU; its rows then time a second CPU step)."""
    from boexplore.bo.loop import sobol_unit
    from boexplore.problems import get_problem

    X = sobol_unit(dim, seed, 0, n)
    y = np.asarray(get_problem(problem_name, dim).evaluate(X), dtype=float)
    bounds = _unit_bounds(dim)
    cpu_model, cpu_fit = fit_on(X, y, CPU)
    gpu_model, gpu_fit = fit_on(X, y, accelerator)
    v0 = max_posterior_mean(cpu_model, bounds) if reference else float("nan")
    columns = (
        (CPU, CPU, cpu_model, bounds, settings, cpu_fit),
        (GPU, accelerator, gpu_model, bounds.to(accelerator), settings, gpu_fit),
        (RANDOM_POINT, CPU, cpu_model, bounds, CONTROL, 0.0),
    )
    rows = []
    for opt_seed in optimizer_seeds(seed, opt_seeds):
        for name, device, model, box, cfg, fit_s in columns:
            x, cpu_s, wall_s = timed_step(model, box, cfg, opt_seed, device)
            kg = reference_kg(cpu_model, bounds, x) if reference else float("nan")
            rows.append({"problem": problem_name, "dim": dim, "n": n, "seed": seed,
                         "opt_seed": opt_seed, "column": name, "device": device, **cfg,
                         "cpu_s": cpu_s, "wall_s": wall_s,
                         "step_s": wall_s if name == GPU else cpu_s, "fit_s": fit_s,
                         "kg_ref": kg, "v0": v0, "x": _json_x(x)})  # fmt: skip
    return rows


def speedups(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (problem, d, n): mean time per step of the CPU and GPU columns and their ratio."""
    steps = rows.groupby(["problem", "dim", "n", "column"], sort=False)["step_s"].mean()
    table = steps.unstack("column")
    out = pd.DataFrame({"cpu_s": table[CPU], "gpu_s": table[GPU]}).reset_index()
    return out.assign(speedup=out["cpu_s"] / out["gpu_s"])


def machine_line() -> str:
    """The CPU and GPU the table was measured on (the GPU's only where CUDA is up)."""
    import torch

    from boexplore.numerics import cpu_model

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU here"
    return f"CPU: {cpu_model()}; GPU: {gpu}; torch {torch.__version__}, CUDA {torch.version.cuda}"


def render_markdown(rows: pd.DataFrame, title: str, machine: str) -> str:
    """Timings per column and size, the speed-ups, and the decision under the gain rule."""
    lines = [f"# {title}", "", "Generated by `python -m boexplore.bench.kg_device` "
             "(see its docstring). Reference KG: "
             f"{REFERENCE['fantasies']} fantasies on the CPU state. {machine}.", "",
             "| problem | d | n | column | states | CPU s / step | wall s / step | "
             "GP fit s | KG gain (reference) |", "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for (p, d, n, c), g in rows.groupby(["problem", "dim", "n", "column"], sort=False):
        lines.append(f"| {p} | {d} | {n} | {c} | {len(g.groupby(STATE))} | {g.cpu_s.mean():.2f} "
                     f"| {g.wall_s.mean():.2f} | {g.fit_s.mean():.2f} | "
                     f"{(g.kg_ref - g.v0).mean():.4g} |")  # fmt: skip
    lines += ["", "## Speed-up per step (CPU column's CPU s / GPU column's wall s)", "",
              "| problem | d | n | CPU s / step | GPU s / step | speed-up |", "|---|---|---|---|---|---|"]  # fmt: skip
    for r in speedups(rows).itertuples(index=False):
        lines.append(f"| {r.problem} | {r.dim} | {r.n} | {r.cpu_s:.2f} | {r.gpu_s:.2f} | "
                     f"{r.speedup:.2f}× |")  # fmt: skip
    if rows["kg_ref"].notna().any():
        table, verdict = warm_decision(rows.assign(cpu_s=rows["step_s"]), column=GPU, base=CPU)
        lines += ["", "## Decision (bench.kg's gain rule)", "",
                  f"The control fails (lower end < {GAIN_RATIO_FLOOR}), the GPU column's gain "
                  f"ratio over the CPU column has lower end ≥ {GAIN_RATIO_FLOOR}, and its time "
                  "per step is lower, in every problem.", "",
                  "| problem | d | states | gain ratio | 95 % interval | ≥ floor | speed-up | "
                  "control lower end |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for r in table.itertuples(index=False):
            lines.append(f"| {r.problem} | {r.dim} | {r.states} | {r.ratio:.3f} | [{r.low:.3f}, "
                         f"{r.high:.3f}] | {'yes' if r.quality else 'no'} | {r.speedup:.2f}× | "
                         f"{r.control_low:.3f} |")  # fmt: skip
        lines += ["", f"Verdict: {verdict.replace('adopt', 'GPU adopted')}."]
    return "\n".join(lines) + "\n"


def run_cli(args: argparse.Namespace) -> int:
    """Measure (needs a GPU) or, with ``--report``, render, from parsed arguments."""
    out, title = args.out, args.title
    if args.report:
        rows = pd.concat([pd.read_csv(p) for p in args.report], ignore_index=True)
        text = render_markdown(rows, title, "Measured on the machines of the merged tables")
        atomic_write_text(rows.to_csv(index=False), out.with_suffix(".csv"))
        atomic_write_text(text, out)
        print(text)
        return 0
    missing = cuda_missing()
    if missing is not None:
        print(missing, file=sys.stderr)
        return 2
    import torch

    from boexplore.bo.device import run_device

    torch.set_num_threads(1)
    run_device(GPU)  # the GPU numerics a bo.device: cuda job runs under
    settings = dict(args.columns.get("current", COLUMNS["current"]))
    csv = out.with_suffix(".csv")
    rows = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=STATE)
    done = {tuple(r) for r in rows[STATE].itertuples(index=False)}
    for seed in range(args.seed_start, args.seed_start + args.seeds):
        for problem, dim in args.problems:
            for n in args.sizes:
                if (problem, dim, n, seed) in done:
                    continue
                new = pd.DataFrame(run_state(problem, dim, n, seed, settings,
                                             not args.no_reference, args.optimizer_seeds))  # fmt: skip
                rows = pd.concat([rows, new], ignore_index=True) if len(rows) else new
                atomic_write_text(rows.to_csv(index=False), csv)
                atomic_write_text(render_markdown(rows, title, machine_line()), out)
                steps = new.groupby("column", sort=False)["step_s"].mean()
                print(f"{problem} d={dim} n={n} seed={seed}: "
                      + ", ".join(f"{c} {s:.2f} s" for c, s in steps.items()), flush=True)  # fmt: skip
    print(render_markdown(rows, title, machine_line()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m boexplore.bench.kg_device``: bench.kg's arguments, Sobol states only."""
    parser = build_parser("qKG on the CPU vs on a GPU, per step, under bench.kg's gain rule",
                          DEVICE_SIZES, DEFAULT_OUT, DEFAULT_TITLE)  # fmt: skip
    parser.epilog = "--sequential, --warm and --control are refused (bench.kg only)."
    args = parser.parse_args(argv)
    if args.sequential or args.warm or args.control:
        parser.error("the GPU study runs Sobol states with its own control column "
                     "(--sequential, --warm and --control are bench.kg's)")  # fmt: skip
    return run_cli(args)


if __name__ == "__main__":
    raise SystemExit(main())
