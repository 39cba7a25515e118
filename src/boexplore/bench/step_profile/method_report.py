"""The whole-step profile's table and page (docs/step-profile.md), and its command.

``python -m boexplore.bench.step_profile methods --config config/replicate-beyond-d.yaml
--problem hi_ackley60_core --problem hi_hartmann6_d100_core --problem hi_lasso_dna180:lasso_dna:180
--n 100 --n 200 --n 280 --out docs/step-profile.csv`` profiles the states (rows merged into the
csv as they finish); ``... methods --report --out docs/step-profile.csv`` renders the page from
the csv alone. Rules for what the page calls a finding are fixed here, before the rows exist:

* the fit's share of a step is ``fit_cpu_s / step_cpu_s`` of the plain (unprofiled) runs;
* a marginal-likelihood evaluation is compute-bound when its counted flops run at least
  ``COMPUTE_BOUND`` of the dense product's rate of the same shape, else overhead-bound;
* a lever's speed-up on the tier's method mix at a state is the mean step CPU over the mix's
  methods under ``gp_fit = botorch`` over the same under ``gp_fit = log`` (paired: one state,
  one process, the same GP data); the target of the high-d work is >= 3x at d = 180, n = 200.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boexplore.bench.step_profile.rules import CATEGORIES, STEP_PHASES
from boexplore.io import atomic_write_text

COMPUTE_BOUND = 0.5
KEY = ["problem", "dim", "n", "seed", "gp_fit", "method"]
DEFAULT_OUT = Path("docs/step-profile.csv")
#: The lever's target on the method mix (issue text): at least this speed-up at d = 180, n = 200.
TARGET_SPEEDUP = 3.0


def merge(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``old`` with the rows of ``new`` replacing those with the same key."""
    if not len(old):
        return new.reset_index(drop=True)
    keep = ~old.set_index(KEY).index.isin(new.set_index(KEY).index)
    return pd.concat([old[keep], new], ignore_index=True)


def _f(x: Any, digits: int = 3) -> str:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    return "—" if not np.isfinite(v) else f"{v:.{digits}g}"


def speedups(rows: pd.DataFrame) -> pd.DataFrame:
    """Per state: mean step CPU over the methods, botorch fit vs log fit, and the speed-up."""
    wide = rows.pivot_table(index=["problem", "dim", "n", "seed"], columns="gp_fit",
                            values=["step_cpu_s", "fit_cpu_s", "acq_cpu_s", "mll_evals"],
                            aggfunc="mean")  # fmt: skip
    out = pd.DataFrame(index=wide.index)
    for col in ("step_cpu_s", "fit_cpu_s", "acq_cpu_s", "mll_evals"):
        for fit in ("botorch", "log"):
            out[f"{col}_{fit}"] = wide[col][fit] if fit in wide[col] else np.nan
    out["speedup"] = out["step_cpu_s_botorch"] / out["step_cpu_s_log"]
    return out.reset_index()


def fit_table(rows: pd.DataFrame) -> list[str]:
    """Per (state, fit): the fit's CPU, evaluations, iterations, per-evaluation cost and flops."""
    fits = rows.drop_duplicates(["problem", "dim", "n", "seed", "gp_fit"])
    lines = ["| problem | d | n | fit | fit CPU s | MLL evals | L-BFGS-B iters | hyperparameters "
             "| MLL reached | per eval CPU ms | flops counted / formula | GFLOP/s (dense product) "
             "| bound | per eval wall 1 / 2 threads ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in fits.sort_values(["dim", "n", "gp_fit"]).itertuples():
        bound = "compute" if r.mll_gflops >= COMPUTE_BOUND * r.gemm_gflops else "overhead"
        lines.append(
            f"| {r.problem} | {r.dim} | {r.n} | {r.gp_fit} | {_f(r.fit_cpu_s)} | {r.mll_evals} "
            f"| {r.lbfgsb_iters} | {r.hyperparameters} | {_f(r.fit_mll, 5)} "
            f"| {_f(1e3 * r.mll_eval_cpu_s)} | {_f(r.mll_flops_counted / r.mll_flops_model)} "
            f"| {_f(r.mll_gflops)} ({_f(r.gemm_gflops)}) | {bound} "
            f"| {_f(1e3 * r.mll_eval_wall_1t_s)} / {_f(1e3 * r.mll_eval_wall_2t_s)} |"
        )
    return lines


def step_table(rows: pd.DataFrame) -> list[str]:
    """Per (state, fit, method): the step's CPU split into fit and proposal, and its phases."""
    phases = [(p, s) for p, s in STEP_PHASES.items() if s != "fit"]
    head = " | ".join(f"{p} %" for p, _ in phases)
    lines = [f"| problem | d | n | fit | method | step CPU s | fit % | {head} | AF evals "
             "(grad / raw) | same point profiled |",
             "|" + "---|" * (9 + len(phases))]  # fmt: skip
    for r in rows.sort_values(["dim", "n", "gp_fit", "method"]).itertuples():
        step = r.step_cpu_s
        acq_total = sum(getattr(r, f"acq_s_phase_{s}") for _, s in STEP_PHASES.items())
        shares = []
        for _, s in phases:
            part = getattr(r, f"acq_s_phase_{s}") / acq_total * r.acq_cpu_s if acq_total else 0
            shares.append(_f(100.0 * part / step))
        lines.append(
            f"| {r.problem} | {r.dim} | {r.n} | {r.gp_fit} | {r.method} | {_f(step)} "
            f"| {_f(100.0 * r.fit_cpu_s / step)} | "
            + " | ".join(shares)
            + f" | {r.acq_evals_grad} / {r.acq_evals_raw} | {'yes' if r.same_point else 'no'} |"
        )
    return lines


def category_table(rows: pd.DataFrame) -> list[str]:
    """Per (state, fit): where the fit's profiled seconds went, by category (innermost rule)."""
    fits = rows.drop_duplicates(["problem", "dim", "n", "seed", "gp_fit"])
    cats = list(CATEGORIES.items())
    lines = ["| problem | d | n | fit | " + " | ".join(f"{c} %" for c, _ in cats) + " |",
             "|" + "---|" * (4 + len(cats))]  # fmt: skip
    for r in fits.sort_values(["dim", "n", "gp_fit"]).itertuples():
        total = sum(getattr(r, f"fit_s_{s}") for _, s in cats)
        lines.append(f"| {r.problem} | {r.dim} | {r.n} | {r.gp_fit} | " + " | ".join(
            _f(100.0 * getattr(r, f"fit_s_{s}") / total) if total else "—" for _, s in cats
        ) + " |")  # fmt: skip
    return lines


def findings(rows: pd.DataFrame) -> list[str]:
    """The page's findings, each computed from the table by the rules of the module docstring."""
    out = []
    cur = rows[rows["gp_fit"] == "botorch"]
    if len(cur):
        share = cur["fit_cpu_s"] / cur["step_cpu_s"]
        out.append(f"- Under BoTorch's fit the GP fit is {_f(100 * share.min())}–"
                   f"{_f(100 * share.max())} % of a step's CPU (median {_f(100 * share.median())} %) "
                   f"over every state and method profiled; it takes {int(cur['mll_evals'].min())}–"
                   f"{int(cur['mll_evals'].max())} marginal-likelihood evaluations.")  # fmt: skip
        fits = cur.drop_duplicates(["problem", "dim", "n", "seed"])
        ratio = fits["mll_gflops"] / fits["gemm_gflops"]
        bound = int((ratio >= COMPUTE_BOUND).sum())
        out.append(f"- One evaluation runs at {_f(ratio.min())}–{_f(ratio.max())} of the dense "
                   f"product's rate: compute-bound in {bound} of {len(fits)} states. Its flops are "
                   f"{(fits['mll_flops_counted'] / fits['mll_flops_model']).min():.3f}–"
                   f"{(fits['mll_flops_counted'] / fits['mll_flops_model']).max():.3f}× the "
                   "formula.")  # fmt: skip
    sp = speedups(rows).dropna(subset=["speedup"])
    if len(sp):
        for r in sp.sort_values(["dim", "n"]).itertuples():
            out.append(f"- {r.problem} (d = {r.dim}, n = {r.n}): mean step over the methods "
                       f"{_f(r.step_cpu_s_botorch)} s → {_f(r.step_cpu_s_log)} s with the log-space "
                       f"fit ({_f(r.speedup)}×; MLL evaluations {_f(r.mll_evals_botorch)} → "
                       f"{_f(r.mll_evals_log)}).")  # fmt: skip
        head = sp[(sp["dim"] == 180) & (sp["n"] == 200)]
        if len(head):
            s = float(head["speedup"].mean())
            verdict = "met" if s >= TARGET_SPEEDUP else "not met"
            out.append(f"- Target (≥ {TARGET_SPEEDUP:g}× at d = 180, n = 200 on the method mix): "
                       f"{_f(s)}×, {verdict}.")  # fmt: skip
    return out


def render_markdown(rows: pd.DataFrame, csv_name: str) -> str:
    """The page: method, findings, the fit, the step and the categories tables."""
    cpus = ", ".join(sorted(set(map(str, rows.get("cpu", pd.Series(dtype=str)).dropna()))))
    lines = ["# Where a high-d BO step's CPU goes", "",
             f"Generated from [{csv_name}]({csv_name}) by `python -m boexplore.bench.step_profile "
             "methods --report`; measured on: " + (cpus or "—") + ". CPU seconds from "
             "`time.process_time`, one torch thread unless a column says otherwise, while other "
             "jobs shared the machine (CPU time is robust to that; the 2-thread wall column is "
             "not). Each state is the first n points of a released trace of the tier's "
             "problem, padded with Sobol points where the trace is shorter; every method's "
             "proposal runs on the same fitted GP (`boexplore.bench.step_profile.method_step`).",
             "", "This page measures speed only. Whether the log-space fit keeps the quality of "
             "the runs (final best value, OTSD, OE) is decided by the pre-registered rule in "
             "[gp-fit-quality.md](gp-fit-quality.md).",
             "", "## Findings", "", *findings(rows), "",
             "## The GP fit", "", *fit_table(rows), "",
             "## The step, per method", "",
             "Shares of the step's CPU: the fit, then the proposal's phases (outermost rule: raw-"
             "sample initial conditions, the restarts' L-BFGS-B optimisation, TS sample paths "
             "and the candidate set, the rest).", "", *step_table(rows), "",
             "## The fit's profiled seconds by category", "", *category_table(rows), ""]  # fmt: skip
    return "\n".join(lines)


def _problem_arg(text: str, config: dict[str, Any]) -> tuple[str, str, int, dict[str, Any]]:
    """``LABEL`` (a problem of the config) or ``LABEL:NAME:DIM`` -> (label, name, dim, options)."""
    problems = config.get("problems", {}) or {}
    data = config.get("data", {}) or {}
    parts = text.split(":")
    if len(parts) == 3:
        label, name, dim = parts[0], parts[1], int(parts[2])
        options: dict[str, Any] = {}
    elif text in problems:
        entry = problems[text]
        label, name, dim = text, str(entry["name"]), int(entry["dim"])
        options = dict(entry.get("options", {}) or {})
    else:
        raise SystemExit(f"--problem {text!r}: a problem label of the config or LABEL:NAME:DIM")
    if name == "lasso_dna" and "data_path" not in options and data.get("lasso_dna_path"):
        options["data_path"] = str(Path(data["lasso_dna_path"]).expanduser().resolve())
    return label, name, dim, options


DEFAULT_METHODS = ("ts", "ts_polish", "logei", "logei_tr", "ucb")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m boexplore.bench.step_profile methods ...`` (module docstring)."""
    from boexplore.workflow_config import load_config, method_bo_settings

    parser = argparse.ArgumentParser(prog="python -m boexplore.bench.step_profile methods",
                                     description=__doc__.splitlines()[0])  # fmt: skip
    parser.add_argument("--config", type=Path, default=Path("config/replicate-beyond-d.yaml"))
    parser.add_argument("--problem", action="append", default=[],
                        help="a problem label of the config, or LABEL:NAME:DIM")  # fmt: skip
    parser.add_argument("--n", type=int, action="append", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--method",
        action="append",
        default=None,
        help=f"method labels of the config (default: {', '.join(DEFAULT_METHODS)})",
    )
    parser.add_argument("--gp-fit", action="append", choices=("botorch", "log"), default=None)
    parser.add_argument("--traces", type=Path, action="append", default=None,
                        help="released trace folders the states come from, in order")  # fmt: skip
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--report", action="store_true", help="render the page from the csv")
    args = parser.parse_args(argv)
    md = args.out.with_suffix(".md")
    rows = pd.read_csv(args.out) if args.out.exists() else pd.DataFrame(columns=KEY)
    if args.report:
        atomic_write_text(render_markdown(rows, args.out.name), md)
        print(f"wrote {md}")
        return 0
    if not args.problem:
        parser.error("--problem is required (or --report)")
    import torch

    from boexplore.bench.step_profile.method_step import profile_state

    torch.set_num_threads(1)
    config = load_config(args.config)
    labels = args.method or list(DEFAULT_METHODS)
    unknown = [m for m in labels if m not in config["methods"]]
    if unknown:
        parser.error(f"--method {unknown}: not a method label of {args.config}")
    methods = {m: config["methods"][m] for m in labels}
    settings = {k: v for k, v in method_bo_settings(config, labels[0]).items()
                if k not in ("extra", "torch_threads", "by_method")}  # fmt: skip
    traces = args.traces or [Path("data/replicate-beyond-d/traces"),
                             Path("data/replicate-long/traces")]  # fmt: skip
    for text in args.problem:
        label, name, dim, options = _problem_arg(text, config)
        for n in args.n or [200]:
            new = profile_state(label, name, dim, n, args.seed, methods, settings,
                                args.gp_fit or ["botorch", "log"], traces, options)  # fmt: skip
            rows = merge(rows, pd.DataFrame(new))
            atomic_write_text(rows.to_csv(index=False), args.out)
            atomic_write_text(render_markdown(rows, args.out.name), md)
            sp = speedups(pd.DataFrame(new))
            print(f"{label} d={dim} n={n}: " + "; ".join(
                f"{r.gp_fit} {r.method} step {r.step_cpu_s:.2f} s (fit {r.fit_cpu_s:.2f} s, "
                f"{r.mll_evals} MLL evals)" for r in pd.DataFrame(new).itertuples()
            ) + f"; speed-up {sp['speedup'].iloc[0]:.2f}x", flush=True)  # fmt: skip
    return 0
