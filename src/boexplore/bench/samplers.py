"""Where Optuna's samplers and Ax's default strategy sit beside our methods in exploration
(our measurement, not a claim of either paper): the runs.

``python -m boexplore.bench.samplers`` (needs the ``optuna``, ``ax`` and ``bo`` extras and
``pip install cmaes`` for CmaEsSampler) runs what is missing and re-renders the page
(:mod:`boexplore.bench.sampler_report`); ``--report-only`` only re-renders it.

Each Optuna sampler (``random``: RandomSampler, ``qmc``: QMCSampler (scrambled Sobol),
``tpe``: TPESampler, ``cmaes``: CmaEsSampler, ``gp``: GPSampler; their defaults, seeded) and
Ax's default generation strategy (``ax``: a ``Client`` with no generation strategy
configured, seeded by ``Client(random_seed=seed)``: the centre of the space and Sobol points,
then its default BoTorch model) maximises replicate-tier problems for the tier's budget,
with one float parameter in [0, 1] per dimension, so a trial's parameters are its point as
they stand. Per run: the final normalised OTSD (``otsd_norm``) and ``oe_rel``, the OE of all
points (``oe_kl_all``) minus the mean OE of uniform random points of the same (d, N), as
``boexplore metrics`` gives. Our methods' values are the committed replicate traces
(``data/replicate/traces``) scored the same way.

Which runs (fixed before the runs that added Ax and the extra problems, 2026-12-07): the six
low-d problems of the replicate tier and its three high-d problems of d = 50-60 with a
synthetic objective, each at the tier's budget (the budget of our methods' committed
traces). Seeds: a first pass of 5 seeds on every problem (``--seeds 5``), then a second
adding seeds 5-7 (``--seeds 8``, the seeds of our methods: the replicate tier's power
analysis decides a standardised effect of 1.5 with probability 0.93 at 8 seeds, 0.20 at 5)
with ``--cpu-cap`` set so that all runs together stay within about 40 CPU-minutes. The
d = 100 problems and the rover are not run: GPSampler and Ax cost most there, and three
high-d problems already let the taxonomy's 2/3 rule decide. The runs go low-d first, then
``hi_hartmann6_d50``, ``hi_rosenbrock50_core``, ``hi_ackley60_core``; ``--cpu-cap`` (CPU
seconds of this invocation's runs): once passed, no new run starts on the next high-d
problems (a problem keeps the seeds it has), and the page lists the problems measured.
Rows go to ``--rows`` as runs finish; a re-run skips the runs already there (``--fresh``:
none); ``--add-rows`` takes in the rows of another invocation (run beside this one with its
own ``--rows``, e.g. other seeds via ``--seed-start``).
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
    "lo_levy4_core": ("levy", 4, 40),
    "lo_michalewicz5": ("michalewicz", 5, 50),
    "lo_ackley5_core": ("ackley", 5, 50),
    "lo_hartmann6": ("hartmann", 6, 60),
    "hi_hartmann6_d50": ("hartmann6_embedded", 50, 30),
    "hi_rosenbrock50_core": ("rosenbrock", 50, 30),
    "hi_ackley60_core": ("ackley", 60, 30),
}
#: Optuna's samplers, then Ax's default generation strategy.
SAMPLERS = ("random", "qmc", "tpe", "cmaes", "gp", "ax")
#: Our methods shown beside the samplers (replicate-tier method names).
#: The labels of the replicate analysis' ``groups`` (the paper's order, TS and the one UCB):
#: the methods the placement classifies the samplers against.
OURS = ("random", "ucb_high", "mes", "logei", "pi", "ucb_low", "greedy", "ts", "ts_polish", "ucb")
COLUMNS = ("source", "problem", "d", "budget", "method", "seed", "otsd_norm", "oe_rel", "cpu_s")
TRACES = Path("data/replicate/traces")
ROWS = Path("data/samplers/tables/samplers_runs.csv")
PAGE = Path("docs/samplers-exploration.md")
FIGURE = Path("figures/samplers/samplers_exploration.png")
COMMAND = "python -m boexplore.bench.samplers"


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
    """One run of ``sampler`` (Optuna's, or ``ax``) on ``problem``; its row of :data:`COLUMNS`."""
    if sampler == "ax":
        return run_ax(problem, seed, baseline)
    return run_optuna(problem, sampler, seed, baseline)


def run_optuna(problem: str, sampler: str, seed: int, baseline: UniformOEBaseline) -> dict:
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


def run_ax(problem: str, seed: int, baseline: UniformOEBaseline) -> dict:
    """One Ax ``Client`` loop with its default generation strategy on ``problem``; its row.
    Raises RuntimeError when the loop's last trial was not made by the BoTorch model (then it
    is not the strategy this row claims to measure)."""
    import logging
    import warnings

    from ax.api.client import Client
    from ax.api.configs import RangeParameterConfig

    from boexplore.integrations.ax import experiment_points
    from boexplore.integrations.ax.live import experiment_of
    from boexplore.problems import get_problem

    name, d, budget = PROBLEMS[problem]
    f = get_problem(name, dim=d)
    keys = [f"x_{i:03d}" for i in range(d)]
    logging.getLogger("ax").setLevel(logging.ERROR)
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = Client(random_seed=seed)
        space = [RangeParameterConfig(name=k, bounds=(0.0, 1.0), parameter_type="float")
                 for k in keys]  # fmt: skip
        client.configure_experiment(name=f"{problem}_{seed}", parameters=space)
        client.configure_optimization(objective="y")  # maximised
        for _ in range(budget):
            for index, params in client.get_next_trials(max_trials=1).items():
                x = np.array([params[k] for k in keys])
                y = float(f.evaluate_noiseless(x[None, :])[0])
                client.complete_trial(trial_index=index, raw_data={"y": y})
    cpu = time.process_time() - start
    nodes = client.summarize()["generation_node"].tolist()
    if len(nodes) != budget or "MBM" not in nodes[-1]:
        raise RuntimeError(f"Ax run {problem} seed {seed}: generation nodes {nodes}")
    X = experiment_points(experiment_of(client)).X  # trial-index order, [0, 1] already
    otsd_norm, oe_rel = final_metrics(X, baseline)
    return dict(source="ax", problem=problem, d=d, budget=budget, method="ax", seed=seed,
                otsd_norm=otsd_norm, oe_rel=oe_rel, cpu_s=cpu)  # fmt: skip


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS), choices=list(PROBLEMS))
    parser.add_argument("--samplers", nargs="+", default=list(SAMPLERS), choices=SAMPLERS)
    parser.add_argument("--methods", nargs="+", default=list(OURS), help="our methods shown")
    parser.add_argument("--seeds", type=int, default=5, help="run seeds below this")
    parser.add_argument("--seed-start", type=int, default=0, help="the first seed run")
    parser.add_argument("--add-rows", type=Path, nargs="*", default=[],
                        help="other runs' rows (CSV, e.g. of a parallel invocation) to take in; "
                        "a run already in the rows is kept as it is")  # fmt: skip
    parser.add_argument("--traces", type=Path, default=TRACES)
    parser.add_argument("--rows", type=Path, default=ROWS, help="the per-run rows (CSV)")
    parser.add_argument("--out", type=Path, default=PAGE, help="the Markdown page")
    parser.add_argument("--figure", type=Path, default=FIGURE, help="the figure (.png)")
    parser.add_argument("--cpu-cap", type=float, default=None,
                        help="CPU seconds of this invocation's runs after which no new run "
                        "starts on a high-d problem")  # fmt: skip
    parser.add_argument("--report-only", action="store_true", help="re-render from the rows")
    parser.add_argument("--fresh", action="store_true", help="ignore the rows of an earlier run")
    args = parser.parse_args(argv)
    if not args.report_only:
        baseline = UniformOEBaseline(n_rep=16, seed=0)
        args.rows.parent.mkdir(parents=True, exist_ok=True)
        done = pd.read_csv(args.rows) if args.rows.exists() and not args.fresh else None
        if done is not None:  # our rows of these problems are scored again below
            done = done[(done["source"] != "ours") | ~done["problem"].isin(args.problems)]
        rows = [] if done is None else done.to_dict("records")
        have = {(r["problem"], r["method"], r["seed"]) for r in rows if r["source"] != "ours"}
        for path in args.add_rows:
            for r in pd.read_csv(path).to_dict("records"):
                key = (r["problem"], r["method"], r["seed"])
                if r["source"] != "ours" and key not in have:
                    rows.append(r)
                    have.add(key)
        spent = 0.0
        for problem in args.problems:
            rows += our_rows(problem, args.methods, baseline, args.traces)
            if args.cpu_cap is not None and PROBLEMS[problem][1] >= 50 and spent > args.cpu_cap:
                print(f"{problem}: no new runs, {spent:.0f} CPU-s spent > --cpu-cap {args.cpu_cap}")
                continue
            for sampler in args.samplers:
                for seed in range(args.seed_start, args.seeds):
                    if (problem, sampler, seed) in have:
                        continue
                    rows.append(run_sampler(problem, sampler, seed, baseline))
                    spent += rows[-1]["cpu_s"]
                    print(f"{problem} {sampler} seed {seed}: {rows[-1]['cpu_s']:.1f} s CPU")
                    frame = pd.DataFrame(rows, columns=list(COLUMNS))
                    frame.to_csv(args.rows, index=False, float_format="%.6g")  # resumable
        frame = pd.DataFrame(rows, columns=list(COLUMNS))
        frame = frame.sort_values(["source", "problem", "method", "seed"], kind="stable")
        frame.to_csv(args.rows, index=False, float_format="%.6g")
    from boexplore.bench.sampler_report import write_report

    write_report(args.rows, args.out, args.figure, COMMAND, PROBLEMS, args.methods)
    print(f"wrote {args.rows}, {args.out} and {args.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
