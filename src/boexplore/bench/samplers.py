"""Where Optuna's samplers sit beside our methods in exploration (our measurement, not a
claim of either paper).

``python -m boexplore.bench.samplers --out docs/samplers-exploration.md`` (needs the
``optuna`` and ``bo`` extras and ``pip install cmaes`` for CmaEsSampler)

Each Optuna sampler (``random``: RandomSampler, ``qmc``: QMCSampler (scrambled Sobol),
``tpe``: TPESampler, ``cmaes``: CmaEsSampler, ``gp``: GPSampler; their defaults, seeded)
maximises replicate-tier problems for the tier's budget, with one float parameter in
[0, 1] per dimension, so a trial's parameters are its point as they stand. Per run: the
final normalised OTSD (``otsd_norm``) and ``oe_rel``, the OE of all points (``oe_kl_all``)
minus the mean OE of uniform random points of the same (d, N), as ``boexplore metrics``
gives. Our methods' values are the committed replicate traces (``data/replicate/traces``)
scored the same way. The page places every method by its normalised OTSD as a multiple of
our random search's on the same problem; Optuna's RandomSampler is the control that should
come out near 1. Rows go to ``<out>.csv`` as runs finish; a re-run skips the Optuna runs
already there (``--fresh``: none), and ``--report-only`` re-renders the page from it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from boexplore.metrics.oe_baseline import UniformOEBaseline
from boexplore.metrics.scoring import metrics_table, x_columns

#: Replicate-tier problems: key -> (registry name, d, budget), as in config/replicate.yaml.
PROBLEMS: dict[str, tuple[str, int, int]] = {
    "lo_branin2": ("branin", 2, 40),
    "lo_hartmann3_core": ("hartmann", 3, 40),
    "lo_michalewicz5": ("michalewicz", 5, 50),
    "hi_hartmann6_d50": ("hartmann6_embedded", 50, 30),
}
SAMPLERS = ("random", "qmc", "tpe", "cmaes", "gp")
#: Our methods shown beside the samplers (replicate-tier method names).
OURS = ("random", "ts", "ts_raasp", "logei", "logei_tr", "ucb", "ucb_high", "ucb_low", "pi",
        "greedy", "mes")  # fmt: skip
COLUMNS = ("source", "problem", "d", "budget", "method", "seed", "otsd_norm", "oe_rel", "cpu_s")
TRACES = Path("data/replicate/traces")


def make_sampler(name: str, seed: int):
    """The Optuna sampler ``name`` with its defaults and ``seed``."""
    import optuna

    samplers: dict[str, Callable[[], object]] = {
        "random": lambda: optuna.samplers.RandomSampler(seed=seed),
        "qmc": lambda: optuna.samplers.QMCSampler(seed=seed, qmc_type="sobol", scramble=True),
        "tpe": lambda: optuna.samplers.TPESampler(seed=seed),
        "cmaes": lambda: optuna.samplers.CmaEsSampler(seed=seed),
        "gp": lambda: optuna.samplers.GPSampler(seed=seed),
    }
    if name not in samplers:
        raise ValueError(f"unknown sampler {name!r}; known: {', '.join(samplers)}")
    return samplers[name]()


def final_metrics(X: np.ndarray, baseline: UniformOEBaseline) -> tuple[float, float]:
    """(final normalised OTSD, final oe_rel) of points ``X`` (T, d) in the unit cube."""
    table = metrics_table(X)
    T, d = X.shape
    return float(table["otsd_norm"][-1]), float(table["oe_kl_all"][-1] - baseline.curve(d, T)[-1])


def run_sampler(problem: str, sampler: str, seed: int, baseline: UniformOEBaseline) -> dict:
    """One Optuna study of ``sampler`` on ``problem``; its row of :data:`COLUMNS`."""
    import warnings

    import optuna

    from boexplore.problems import get_problem

    name, d, budget = PROBLEMS[problem]
    f = get_problem(name, dim=d)
    keys = [f"x_{i:03d}" for i in range(d)]  # sorted like the dimensions

    def objective(trial: optuna.Trial) -> float:
        x = np.array([trial.suggest_float(k, 0.0, 1.0) for k in keys])
        return float(f.evaluate_noiseless(x[None, :])[0])

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # experimental-sampler warnings
        study = optuna.create_study(direction="maximize", sampler=make_sampler(sampler, seed))
        study.optimize(objective, n_trials=budget)
    cpu = time.process_time() - start
    X = np.array([[t.params[k] for k in keys] for t in study.trials])
    otsd_norm, oe_rel = final_metrics(X, baseline)
    return dict(source="optuna", problem=problem, d=d, budget=budget, method=sampler,
                seed=seed, otsd_norm=otsd_norm, oe_rel=oe_rel, cpu_s=cpu)  # fmt: skip


def our_rows(problem: str, methods: Sequence[str], baseline: UniformOEBaseline,
             traces: Path = TRACES) -> list[dict]:  # fmt: skip
    """Rows of our methods' committed traces on ``problem`` (every seed there); a method
    without traces there has no rows (FileNotFoundError when none of them has any)."""
    _, d, budget = PROBLEMS[problem]
    rows = []
    for method in methods:
        files = sorted((traces / problem / method).glob("*.parquet"))
        if not files:
            continue
        df = pd.concat([pd.read_parquet(p) for p in files])
        for seed, run in df.groupby("seed"):
            run = run.sort_values("eval_index")
            X = run[x_columns(run)].to_numpy(np.float64)[:budget]
            otsd_norm, oe_rel = final_metrics(X, baseline)
            rows.append(dict(source="ours", problem=problem, d=d, budget=budget, method=method,
                             seed=int(seed), otsd_norm=otsd_norm, oe_rel=oe_rel, cpu_s=np.nan))  # fmt: skip
    if not rows:
        raise FileNotFoundError(f"no traces of {list(methods)} on {problem} under {traces}")
    return rows


def placement(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (source, method) and problem: mean normalised OTSD over our random search's, and
    mean oe_rel; rows ordered by the median multiple across problems (most exploring first)."""
    means = rows.groupby(["source", "method", "problem"])[["otsd_norm", "oe_rel"]].mean()
    random = means.loc[("ours", "random")]["otsd_norm"]
    ratio = means["otsd_norm"] / random.reindex(means.index.get_level_values("problem")).values
    wide = pd.concat(
        {"x random": ratio.unstack("problem"), "oe_rel": means["oe_rel"].unstack("problem")}, axis=1
    )
    order = wide["x random"].median(axis=1).sort_values(ascending=False).index
    return wide.loc[order]


def render(rows: pd.DataFrame, command: str) -> str:
    """The Markdown page: what was run, and the placement tables."""
    wide = placement(rows)
    problems = [p for p in PROBLEMS if p in set(rows["problem"])]
    seeds = rows.groupby("source")["seed"].nunique().to_dict()
    cpu = rows.loc[rows["source"] == "optuna"].groupby("method")["cpu_s"].sum()

    def label(idx: tuple[str, str]) -> str:
        source, method = idx
        return f"**{method}** (Optuna)" if source == "optuna" else method

    def table(kind: str, fmt: str) -> list[str]:
        head = "| method | " + " | ".join(
            f"{p} (d = {PROBLEMS[p][1]}, {PROBLEMS[p][2]} ev.)" for p in problems
        )
        out = [head + " |", "|---|" + "---:|" * len(problems)]
        for idx, row in wide[kind].iterrows():
            cells = " | ".join("" if np.isnan(row[p]) else format(row[p], fmt) for p in problems)
            out.append(f"| {label(idx)} | {cells} |")
        return out

    lines = [
        "# Optuna's samplers by exploration, beside paper 1's methods",
        "",
        "*Our measurement, not a claim of either paper.* Where the samplers most Optuna users "
        "run sit beside the acquisition functions of paper 1, by the two exploration metrics. "
        f"Made by `{command}` (method: `boexplore.bench.samplers`); rows in "
        "[samplers-exploration.csv](samplers-exploration.csv).",
        "",
        f"Optuna samplers: {seeds.get('optuna', 0)} seeds each, their defaults; our methods: "
        f"the committed replicate traces ({seeds.get('ours', 0)} seeds). Every problem is "
        "maximised for the replicate tier's budget, one float parameter in [0, 1] per "
        "dimension. CPU seconds of all Optuna runs per sampler: "
        + ", ".join(f"{m} {s:.0f}" for m, s in cpu.items())
        + ".",
        "",
        "## Normalised OTSD as a multiple of our random search's",
        "",
        "Mean final OTSD / Ψ(d, T) over seeds, divided by random search's on the same problem: "
        "above 1 spreads its points more than uniform random search, far below 1 "
        "concentrates them. Rows: most exploring first (median over the problems). Optuna's "
        "RandomSampler is the control: it draws uniform points too, so it should be near 1.",
        "",
        *table("x random", ".2f"),
        "",
        "A blank cell: no committed traces of that method on that problem.",
        "",
        "## OE relative to uniform random points",
        "",
        "Mean final OE of all points minus the mean OE of uniform random points of the same "
        "(d, N) (`oe_rel` of `boexplore metrics`): near 0 spreads like random, negative "
        "concentrates.",
        "",
        *table("oe_rel", ".2f"),
        "",
        "Ax's default strategy is not in these tables: its model-based steps cost more CPU "
        "than this study's budget allows; measure one of your own Ax experiments with "
        "[Measure your own loop](measure-your-loop.md).",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS), choices=list(PROBLEMS))
    parser.add_argument("--samplers", nargs="+", default=list(SAMPLERS), choices=SAMPLERS)
    parser.add_argument("--methods", nargs="+", default=list(OURS), help="our methods shown")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--traces", type=Path, default=TRACES)
    parser.add_argument("--out", type=Path, default=Path("docs/samplers-exploration.md"))
    parser.add_argument("--report-only", action="store_true", help="re-render from the CSV")
    parser.add_argument("--fresh", action="store_true", help="ignore the rows of an earlier run")
    args = parser.parse_args(argv)
    csv = args.out.with_suffix(".csv")
    command = "python -m boexplore.bench.samplers" + (
        f" --seeds {args.seeds}" if args.seeds != 5 else ""
    )
    if not args.report_only:
        baseline = UniformOEBaseline(n_rep=16, seed=0)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        done = pd.read_csv(csv) if csv.exists() and not args.fresh else None
        rows = [] if done is None else done[done["source"] == "optuna"].to_dict("records")
        have = {(r["problem"], r["method"], r["seed"]) for r in rows}  # ours: re-scored
        for problem in args.problems:
            rows += our_rows(problem, args.methods, baseline, args.traces)
            for sampler in args.samplers:
                for seed in range(args.seeds):
                    if (problem, sampler, seed) in have:
                        continue
                    rows.append(run_sampler(problem, sampler, seed, baseline))
                    print(f"{problem} {sampler} seed {seed}: {rows[-1]['cpu_s']:.1f} s CPU")
                    frame = pd.DataFrame(rows, columns=list(COLUMNS))
                    frame.to_csv(csv, index=False, float_format="%.6g")  # resumable
        frame = pd.DataFrame(rows, columns=list(COLUMNS))
        frame = frame.sort_values(["source", "problem", "method", "seed"], kind="stable")
        frame.to_csv(csv, index=False, float_format="%.6g")
    args.out.write_text(render(pd.read_csv(csv), command), encoding="utf-8")
    print(f"wrote {csv} and {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
