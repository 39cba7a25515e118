"""Speed *and* quality of BO settings on full runs: current vs proposed vs plain BoTorch.

``python -m boexplore.bench.quality --out docs/bo-speed.md``

Every cell is one full BO run (``--budget`` evaluations, the engine's initial design) of
one method on one problem and seed, under one settings column:

* ``botorch``: a plain BoTorch loop (SingleTaskGP + fit_gpytorch_mll + optimize_acqf, no
  boexplore code in the loop) with the *current* optimiser settings: the reference the
  engine must match (LogEI and UCB only; TS has no one-call BoTorch equivalent);
* ``current``: the engine with today's paper-config settings;
* ``proposed``: the engine with the candidate settings (fit schedule + optimiser effort).

Reported per (problem, method, column): CPU seconds per BO iteration (``time.process_time``,
so other jobs on the machine do not inflate it), final best value, final normalised OTSD
and final OE; and per (problem, method) the paired seed differences proposed − current
with a 95 % t interval: a quality difference is "within seed noise" when the interval
contains 0. Rows are appended to ``<out>.csv`` as runs finish; a re-run skips finished
cells (resumable), and the Markdown report is rewritten after every cell.
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.stats import t_interval

CURRENT: dict[str, Any] = {"num_restarts": 10, "raw_samples": 1024, "refit_every": 1}
PROPOSED: dict[str, Any] = {"num_restarts": 5, "raw_samples": 512, "refit_every": 4}
#: Further candidate columns run with ``--name`` (settings over ``CURRENT``).
CANDIDATES: dict[str, dict[str, Any]] = {
    "proposed": PROPOSED,
    "effort_only": {"num_restarts": 5, "raw_samples": 512, "refit_every": 1},
    # qKG's lever (docs/kg-speed.md): half the optimiser effort and 32 fantasies
    # the log-space GP fit (bo/fit_log.py): the same optimiser effort, the fit over log
    # hyperparameters (docs/gp-fit-quality.md)
    "log_fit": {"num_restarts": 10, "raw_samples": 1024, "refit_every": 1, "gp_fit": "log"},
    "kg_cheap": {
        "num_restarts": 5,
        "raw_samples": 512,
        "refit_every": 1,
        "method_params": {"fantasies": 32},
    },
}
DEFAULT_PROBLEMS = ("branin:2", "hartmann:6", "ackley:50", "lasso_synthetic:180")
DEFAULT_METHODS = ("logei", "ucb(beta=2)", "ts")
BOTORCH_METHODS = ("logei", "ucb(beta=2)")
KEY = ["problem", "dim", "method", "column", "seed"]


def _final_metrics(X: np.ndarray) -> tuple[float, float]:
    """Final normalised OTSD and final OE (all-points k-NN estimator) of unit-cube points."""
    from boexplore.metrics.scoring import metrics_table

    table = metrics_table(X)
    return float(table["otsd_norm"][-1]), float(table["oe_kl_all"][-1])


def with_method_params(method: str, params: Mapping[str, Any]) -> str:
    """``method`` with the parameters of ``params`` its base method has replaced (a column's
    ``method_params``, e.g. qKG's fantasies); other methods are returned unchanged."""
    from dataclasses import replace

    from boexplore.bo.methods import METHODS, parse_method

    spec = parse_method(method)
    known = {k: v for k, v in params.items() if k in METHODS[spec.base].defaults}
    return replace(spec, params={**spec.params, **known}).canonical() if known else method


def _engine_run(problem: Any, method: str, seed: int, budget: int, n_init: int,
                settings: Mapping[str, Any]) -> dict[str, float]:  # fmt: skip
    from boexplore.bo.loop import run_bo

    settings = dict(settings)
    method = with_method_params(method, settings.pop("method_params", {}))

    trace = run_bo(problem, method, seed=seed, budget=budget, n_init=n_init, clock="cpu",
                   **settings)  # fmt: skip
    it = trace[trace["iteration"] > 0].drop_duplicates("iteration")
    X = trace[[c for c in trace.columns if c.startswith("x_")]].to_numpy()
    otsd, oe = _final_metrics(X)
    return {
        "fit_s": float(it["fit_seconds"].mean()),
        "acq_s": float(it["acq_seconds"].mean()),
        "best": float(trace["best_so_far"].iloc[-1]),
        "otsd_norm": otsd,
        "oe": oe,
        "fallbacks": int((it["fallback"] != "").sum()),
    }


def _botorch_run(problem: Any, method: str, seed: int, budget: int, n_init: int,
                 settings: Mapping[str, Any]) -> dict[str, float]:  # fmt: skip
    """Plain BoTorch loop with the same initial design, GP and optimiser effort."""
    import torch
    from botorch.acquisition import LogExpectedImprovement, UpperConfidenceBound
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.optim import optimize_acqf
    from gpytorch.mlls import ExactMarginalLogLikelihood

    from boexplore.bo.loop import sobol_unit

    d = int(problem.dim)
    X = sobol_unit(d, seed, 0, n_init)
    y = np.asarray(problem.evaluate(X), dtype=float)
    bounds = torch.stack([torch.zeros(d), torch.ones(d)]).double()
    torch.manual_seed(seed)
    fit_s, acq_s = [], []
    while len(y) < budget:
        X_t = torch.as_tensor(X, dtype=torch.float64)
        Y_t = torch.as_tensor(y, dtype=torch.float64).unsqueeze(-1)
        t0 = time.process_time()
        model = SingleTaskGP(X_t, Y_t)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
        t1 = time.process_time()
        if method == "logei":
            acqf = LogExpectedImprovement(model, best_f=Y_t.max())
        elif method.startswith("ucb"):
            beta = float(method.split("beta=")[1].rstrip(")")) if "beta=" in method else 2.0
            acqf = UpperConfidenceBound(model, beta=beta)
        else:
            raise ValueError(f"no plain-BoTorch baseline for {method!r}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x_new, _ = optimize_acqf(acqf, bounds=bounds, q=1,
                                     num_restarts=int(settings["num_restarts"]),
                                     raw_samples=int(settings["raw_samples"]))  # fmt: skip
        t2 = time.process_time()
        fit_s.append(t1 - t0)
        acq_s.append(t2 - t1)
        x = x_new.detach().numpy()
        X = np.vstack([X, x])
        y = np.concatenate([y, np.asarray(problem.evaluate(x), dtype=float)])
    otsd, oe = _final_metrics(X)
    return {
        "fit_s": float(np.mean(fit_s)),
        "acq_s": float(np.mean(acq_s)),
        "best": float(np.nanmax(y)),
        "otsd_norm": otsd,
        "oe": oe,
        "fallbacks": 0,
    }


def run_cell(problem_name: str, dim: int, method: str, column: str, seed: int, budget: int,
             columns: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """One full run; returns the CSV row."""
    from boexplore.bo.design import default_n_init
    from boexplore.problems import get_problem

    problem = get_problem(problem_name, dim)
    n_init = default_n_init(dim, budget)
    settings = dict(columns[column])
    runner = _botorch_run if column == "botorch" else _engine_run
    start = time.process_time()
    out = runner(problem, method, seed, budget, n_init, settings)
    row = {"problem": problem_name, "dim": dim, "method": method, "column": column,
           "seed": seed, "budget": budget, "n_init": n_init, **out}  # fmt: skip
    row["iter_s"] = row["fit_s"] + row["acq_s"]
    row["run_cpu_s"] = time.process_time() - start
    row["regret"] = (
        float(problem.optimum_value - row["best"])
        if problem.optimum_value is not None
        else math.nan
    )
    return row


def paired_comparison(rows: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Per (problem, method): speed-up b/a and paired differences a − b with 95 % t intervals."""
    out = []
    for cell in paired_seed_differences(rows, a, b).to_dict("records"):
        rec = {k: cell[k] for k in ("problem", "dim", "method", "seeds", "speedup")}
        for metric in ("best", "otsd_norm", "oe"):
            m, lo, hi = t_interval(cell[f"diff_{metric}"])
            rec[f"d_{metric}"], rec[f"d_{metric}_lo"], rec[f"d_{metric}_hi"] = m, lo, hi
            rec[f"{metric}_within_noise"] = bool(lo <= 0.0 <= hi) if math.isfinite(lo) else None
        out.append(rec)
    return pd.DataFrame(out)


#: Quality metrics of the decision and the direction that counts against the cheaper column:
#: a lower final best (maximisation), or any shift of the exploration metrics.
DECISION_METRICS: dict[str, str] = {"best": "lower", "otsd_norm": "shift", "oe": "shift"}


#: Fewest seed pairs (over all cells) for which the pooled sign test may declare "holds".
MIN_PAIRS = 30


def _sign_test(diffs: np.ndarray, direction: str) -> tuple[int, int, float]:
    """(pairs lower, pairs higher, p-value) of the exact sign test of pooled seed differences;
    one-sided towards "lower" for ``direction == "lower"``, two-sided otherwise."""
    from scipy import stats

    lower, higher = int((diffs < 0).sum()), int((diffs > 0).sum())
    n = lower + higher
    if n == 0:
        return lower, higher, 1.0
    alternative = "greater" if direction == "lower" else "two-sided"
    return lower, higher, float(stats.binomtest(lower, n, 0.5, alternative=alternative).pvalue)


def quality_decision(paired: pd.DataFrame, alpha: float = 0.05) -> dict[str, Any]:
    """Fixed rule: quality holds when no cell differs and the pooled signs show no shift.

    ``paired``: rows of :func:`paired_seed_differences` (one per (problem, method) cell; the
    seed differences cheaper − reference per metric). Two checks per metric:

    * per cell, a two-sided paired t-test over seeds, Holm-corrected over the cells; a cell
      counts against when significant in the direction of :data:`DECISION_METRICS`;
    * pooled over all cells and seeds, an exact sign test of the differences (one-sided
      "lower" for the final best, two-sided for the exploration metrics): scale-free, so a
      cell whose seeds all agree to 1e-4 cannot dominate it. It needs at least
      :data:`MIN_PAIRS` pairs to declare "holds" (too few seeds cannot pass for "no shift").

    Returns per metric the cells against and the sign counts, and ``holds``.
    """
    from boexplore.analysis.claimkit.stats import holm, paired_t_two_sided

    out: dict[str, Any] = {"cells": len(paired)}
    holds = True
    for metric, direction in DECISION_METRICS.items():
        diffs = [np.asarray(d, float) for d in paired[f"diff_{metric}"]]
        tests = [paired_t_two_sided(d) for d in diffs]
        adjusted = holm([p for p, _ in tests]) if tests else []
        against = sum(
            bool(p_adj < alpha and (direction == "shift" or mean < 0))
            for p_adj, (_, mean) in zip(adjusted, tests, strict=True)
        )
        pooled = np.concatenate(diffs) if diffs else np.array([])
        pooled = pooled[np.isfinite(pooled)]
        lower, higher, p_sign = _sign_test(pooled, direction)
        enough = len(pooled) >= MIN_PAIRS
        out[metric] = {"against": int(against), "lower": lower, "higher": higher,
                       "p_sign": p_sign, "pairs": len(pooled),
                       "ok": against == 0 and p_sign >= alpha and enough}  # fmt: skip
        holds = holds and out[metric]["ok"]
    out["holds"] = holds
    return out


def paired_seed_differences(rows: pd.DataFrame, a: str, b: str, by: str = "column") -> pd.DataFrame:
    """Per (problem, method) cell: the seed-paired differences ``a − b`` of every metric, the
    number of paired seeds and (with CPU data) the speed-up ``b / a`` per iteration.

    ``by="column"`` compares two settings columns of one method; ``by="method"`` compares two
    methods under one column (the control: a real difference in exploration).
    """
    cell = ["problem", "dim", "method"] if by == "column" else ["problem", "dim", "column"]
    values = [*DECISION_METRICS, *(["iter_s"] if "iter_s" in rows else [])]
    out = []
    for key, grp in rows.groupby(cell, sort=False):
        wide = grp.pivot_table(index="seed", columns=by, values=values)
        if a not in wide["best"].columns or b not in wide["best"].columns:
            continue
        wide = wide.dropna()
        rec = dict(zip(cell, key, strict=True))
        rec["seeds"] = len(wide)
        if "iter_s" in values:
            rec["speedup"] = float(wide["iter_s"][b].mean() / wide["iter_s"][a].mean())
        for metric in DECISION_METRICS:
            rec[f"diff_{metric}"] = (wide[metric][a] - wide[metric][b]).to_numpy()
        out.append(rec)
    return pd.DataFrame(out)


def candidate_columns(rows: pd.DataFrame) -> list[str]:
    """The cheaper settings columns present (everything but ``current`` and ``botorch``)."""
    return [c for c in dict.fromkeys(rows["column"]) if c not in ("current", "botorch")]


def _decision_lines(rows: pd.DataFrame) -> list[str]:
    """The decision for each candidate vs current, and the controls of the same rule."""
    checks = [
        *((f"{c} vs current (the decision)", paired_seed_differences(rows, c, "current"))
          for c in candidate_columns(rows)),
        ("current vs plain BoTorch (must hold: same algorithm)",
         paired_seed_differences(rows, "current", "botorch")),
        ("control: ucb(beta=2) vs logei under `current` (must fail: a real exploration "
         "difference)", paired_seed_differences(rows[rows["column"] == "current"], "ucb(beta=2)",
                                              "logei", by="method")),
    ]  # fmt: skip
    lines = ["", "## Decision (rule fixed before results)", "",
             "Per metric: (i) two-sided paired t-tests over seeds in every (problem, method) "
             "cell, Holm-corrected over the cells at α = 0.05; a cell counts against the "
             "cheaper settings when its final best is significantly lower, or its final OTSD/ψ "
             "or OE significantly shifted either way; (ii) an exact sign test of all seed "
             "differences pooled over the cells (one-sided 'lower' for best, two-sided for "
             f"OTSD/ψ and OE) at α = 0.05, with at least {MIN_PAIRS} pairs. Quality holds "
             "when no cell counts against and no sign test rejects. Cells: cells against; "
             "pairs lower / higher; sign-test p.",
             "", "| comparison | cells | best | OTSD/ψ | OE | holds |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for name, paired in checks:
        if paired.empty:
            continue
        d = quality_decision(paired)
        cells = []
        for metric in DECISION_METRICS:
            r = d[metric]
            mark = "✓" if r["ok"] else "✗"
            cells.append(f"{r['against']} against; {r['lower']} / {r['higher']}; "
                         f"p = {r['p_sign']:.2g} {mark}")  # fmt: skip
        lines.append(f"| {name} | {d['cells']} | " + " | ".join(cells) +
                     f" | {'yes' if d['holds'] else 'no'} |")  # fmt: skip
    return lines


def _fmt(x: float, digits: int = 3) -> str:
    return (
        "—" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{digits}g}"
    )


#: Title of the generated page (``--title`` replaces it).
DEFAULT_TITLE = "BO speed at equal quality (issue 13)"


def render_markdown(rows: pd.DataFrame, columns: Mapping[str, Mapping[str, Any]],
                    paper_estimate: Mapping[str, float] | None = None,
                    title: str = DEFAULT_TITLE) -> str:  # fmt: skip
    """Side-by-side table per (problem, method, column) plus the paired proposed-vs-current test."""
    lines = [f"# {title}", "",
             "Generated by `python -m boexplore.bench.quality`; CPU seconds from "
             "`time.process_time` (one torch thread). Settings columns:", ""]  # fmt: skip
    for name, cfg in columns.items():
        lines.append(f"- `{name}`: `{json.dumps(dict(cfg))}`")
    lines += ["", "## Per column (mean ± s.e. over seeds)", "",
              "| problem | d | method | column | seeds | CPU s / iter (fit + acq) | final best | "
              "final OTSD/ψ | final OE |", "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for (prob, dim, method, col), g in rows.groupby(["problem", "dim", "method", "column"],
                                                    sort=False):  # fmt: skip

        def ms(v: pd.Series) -> str:
            se = v.std(ddof=1) / math.sqrt(len(v)) if len(v) > 1 else math.nan
            return f"{_fmt(v.mean(), 4)} ± {_fmt(se, 2)}"

        lines.append(
            f"| {prob} | {dim} | {method} | {col} | {len(g)} | {_fmt(g['iter_s'].mean())} "
            f"({_fmt(g['fit_s'].mean())} + {_fmt(g['acq_s'].mean())}) | {ms(g['best'])} | "
            f"{ms(g['otsd_norm'])} | {ms(g['oe'])} |"
        )
    for a, b in (*((c, "current") for c in candidate_columns(rows)), ("current", "botorch")):
        cmp = paired_comparison(rows, a, b)
        if cmp.empty:
            continue
        lines += ["", f"## Paired seeds: {a} − {b} (95 % t interval; ✓ = contains 0)", "",
                  f"| problem | d | method | seeds | speed-up ({b} / {a} CPU per iter) | Δ best | "
                  "Δ OTSD/ψ | Δ OE |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for r in cmp.itertuples():
            cells = []
            for metric in ("best", "otsd_norm", "oe"):
                ok = getattr(r, f"{metric}_within_noise")
                mark = "✓" if ok else ("✗" if ok is not None else "")
                cells.append(
                    f"{_fmt(getattr(r, f'd_{metric}'))} [{_fmt(getattr(r, f'd_{metric}_lo'))}, "
                    f"{_fmt(getattr(r, f'd_{metric}_hi'))}] {mark}"
                )
            lines.append(f"| {r.problem} | {r.dim} | {r.method} | {r.seeds} | "
                         f"{r.speedup:.2f}× | " + " | ".join(cells) + " |")  # fmt: skip
    lines += _decision_lines(rows)
    if paper_estimate:
        lines += ["", "## Paper config (cost model, `boexplore estimate`)", ""]
        for name, hours in paper_estimate.items():
            lines.append(f"- {name}: {hours:,.0f} CPU-hours (BO runs)")
    return "\n".join(lines) + "\n"


def paper_cpu_hours(
    bo_overrides: Mapping[str, Any], config_path: str = "config/paper.yaml"
) -> float:
    """BO CPU-hours of a config under the cost model with ``bo_overrides`` applied."""
    import yaml

    from boexplore.pipeline import cost

    path = Path(config_path)
    if not path.exists() and not path.is_absolute():
        # run from outside the checkout: the config next to this source tree's src/
        path = Path(__file__).resolve().parents[3] / config_path
    config = yaml.safe_load(path.read_text())
    overrides = dict(bo_overrides)
    params = overrides.pop("method_params", {})
    config["methods"] = {k: with_method_params(v, params) for k, v in config["methods"].items()}
    config["bo"] = {**config.get("bo", {}), **overrides}
    return sum(j.cpu_s for j in cost.workflow_job_costs(config) if j.rule == "bo_run") / 3600.0


def parse_problem_arg(text: str) -> tuple[str, int]:
    """argparse type of ``--problems``: ``NAME:DIM`` -> ``(name, dim)``."""
    name, _, dim = text.partition(":")
    if not dim:
        raise argparse.ArgumentTypeError(f"problem {text!r}: expected NAME:DIM, e.g. branin:2")
    return name, int(dim)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", nargs="+", type=parse_problem_arg,
                        default=[parse_problem_arg(p) for p in DEFAULT_PROBLEMS])  # fmt: skip
    parser.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--seed-start", type=int, default=0,
                        help="first seed (seeds seed-start .. seed-start + seeds - 1)")  # fmt: skip
    parser.add_argument("--budget", type=int, default=50)
    parser.add_argument("--proposed", type=json.loads, default=PROPOSED,
                        help="JSON settings of the proposed column")  # fmt: skip
    parser.add_argument("--no-botorch", action="store_true", help="skip the plain-BoTorch column")
    parser.add_argument("--out", type=Path, default=Path("docs/bo-speed.md"))
    parser.add_argument("--report-only", action="store_true", help="re-render from the CSV")
    parser.add_argument("--title", default=DEFAULT_TITLE, help="title of the generated page")
    parser.add_argument("--name", default="proposed",
                        help=f"name of the candidate column (known: {', '.join(CANDIDATES)})")  # fmt: skip
    args = parser.parse_args(argv)
    if args.proposed is PROPOSED and args.name in CANDIDATES:
        args.proposed = CANDIDATES[args.name]

    import torch

    torch.set_num_threads(1)
    columns = {"current": CURRENT, args.name: {**CURRENT, **args.proposed}}
    if not args.no_botorch:
        columns = {"botorch": CURRENT, **columns}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    csv = args.out.with_suffix(".csv")
    rows = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=KEY)
    done = {tuple(r) for r in rows[KEY].itertuples(index=False)}
    run_columns = list(columns)
    for name in candidate_columns(rows) if len(rows) else []:
        columns.setdefault(name, {**CURRENT, **CANDIDATES.get(name, {})})
    estimate = {name: paper_cpu_hours(cfg) for name, cfg in columns.items() if name != "botorch"}
    cells = [
        (p, d, m, c, s)
        for s in range(args.seed_start, args.seed_start + args.seeds)
        for p, d in args.problems
        for m in args.methods
        for c in run_columns
        if not (c == "botorch" and m not in BOTORCH_METHODS)
    ]
    for i, (p, d, m, c, s) in enumerate(cells):
        if args.report_only:
            break
        if (p, d, m, c, s) in done:
            continue
        row = run_cell(p, d, m, c, s, args.budget, columns)
        rows = (
            pd.concat([rows, pd.DataFrame([row])], ignore_index=True)
            if len(rows)
            else pd.DataFrame([row])
        )
        tmp = csv.with_suffix(".csv.tmp")
        rows.to_csv(tmp, index=False)
        tmp.replace(csv)
        print(f"[{i + 1}/{len(cells)}] {p} d={d} {m} {c} seed={s}: {row['iter_s']:.2f} s/iter, "
              f"best {row['best']:.4g}, OTSD/ψ {row['otsd_norm']:.3f}", flush=True)  # fmt: skip
        args.out.write_text(render_markdown(rows, columns, estimate, args.title))
    args.out.write_text(render_markdown(rows, columns, estimate, args.title))
    print(args.out.read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
