"""``boexplore diagnose TRACE``: the monitor's per-step timeline, a figure and the stop point."""

from __future__ import annotations

import argparse
import sys

from boexplore.metrics.cli import add_bounds


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``diagnose`` sub-command."""
    p = subparsers.add_parser(
        "diagnose",
        help="exploration monitor timeline, early-stop point and advice for a BO trace",
        description="Replay a BO trace (rows in evaluation order; x_0..x_{d-1} in the unit cube "
        "or --bounds, optional y column, maximisation unless --minimize) through the exploration "
        "monitor and the OTSD stop rule: per-step normalised OTSD, its ratio to uniform random "
        "points of the same (d, t), the state (over-exploring / balanced / under-exploring, with "
        "hysteresis), where the stop rule would have stopped, and what to change. Defaults are "
        "the thresholds of config/replicate.yaml (analysis.uses), tuned on held-out problems. "
        "When the stop rule fires, one more line gives its claim's committed verdict (P1-U2 of "
        "the decide tier: whether the saving it offers held on held-out problems, and its "
        "loss against the incumbent-only control).",
    )
    p.add_argument(
        "trace",
        nargs="?",
        help=".csv or .parquet trace (a boexplore run file works as is); or give --optuna-storage",
    )
    p.add_argument(
        "--optuna-storage",
        metavar="URL",
        help="read an Optuna study from this storage instead of a trace (e.g. "
        "sqlite:///study.db; needs the optuna extra): its COMPLETE trials in trial-number "
        "order, parameters mapped to [0,1]^d as in docs/measure-your-loop.md, the direction "
        "read from the study",
    )
    p.add_argument("--study", help="study name in --optuna-storage (default: the only study there)")
    p.add_argument(
        "--ax-snapshot",
        metavar="JSON",
        help="read an Ax experiment from the snapshot Client.save_to_json_file wrote instead of "
        "a trace (needs the ax extra): its COMPLETED trials in index order, mapped as for Optuna",
    )
    p.add_argument(
        "--write-points",
        metavar="CSV",
        help="with --optuna-storage / --ax-snapshot: also write the points (trial, x_0 .. "
        "x_{d-1}, y) "
        "here, the input `boexplore metrics` reads",
    )
    p.add_argument(
        "--seed", type=int, help="seed to diagnose when the file holds several (default: the first)"
    )
    p.add_argument(
        "--n-init",
        type=int,
        help="initial-design size (default: is_initial / iteration == 0 rows, else 1/5 of T)",
    )
    p.add_argument(
        "--y-column", default="y", help="objective column (default y; absent: no incumbent)"
    )
    p.add_argument("--minimize", action="store_true", help="the objective is minimised")
    add_bounds(p, "search box, as in `boexplore metrics`")
    p.add_argument("--method", help="method spec of the run, for the advice (e.g. ts)")
    p.add_argument("--figure", help="write the timeline figure here (.png; needs matplotlib)")
    p.add_argument("-o", "--output", help="write the timeline CSV here instead of printing it")
    p.add_argument("--window", type=int, help="stop rule: evaluations the condition must hold")
    p.add_argument("--otsd-frac", type=float, help="stop rule: fraction of random's OTSD increment")
    p.add_argument("--over-ratio", type=float, help="monitor: over-exploring at this x random")
    p.add_argument(
        "--claims-tables",
        metavar="DIR",
        help="claims tables the stop rule's verdict is read from (default: the committed "
        "data/replicate-decide/tables, or the package's copy of its P1-U2 rows when installed)",
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import dataclasses

    import numpy as np
    import pandas as pd

    from boexplore.diagnostics.advice import suggest
    from boexplore.diagnostics.monitor import MonitorThresholds
    from boexplore.diagnostics.stopping import StopRule
    from boexplore.diagnostics.timeline import diagnose_points, stop_at
    from boexplore.diagnostics.verdict import load_stop_verdict
    from boexplore.metrics.cli import _unit_points
    from boexplore.metrics.scoring import x_columns

    sources = [args.trace, args.optuna_storage, args.ax_snapshot]
    if sum(source is not None for source in sources) != 1:
        raise ValueError("give one of a TRACE file, --optuna-storage URL or --ax-snapshot JSON")
    if args.optuna_storage is None and args.study:
        raise ValueError("--study needs --optuna-storage")
    if args.trace is None:
        from boexplore.diagnostics.study_source import points_trace, study_summary

        if args.minimize or args.bounds is not None or args.seed is not None:
            raise ValueError(
                "--minimize, --bounds and --seed apply to trace files: an Optuna study or Ax "
                "experiment states its direction and its space"
            )
        if args.optuna_storage is not None:
            from boexplore.integrations.optuna.study import load_study_points

            points = load_study_points(args.optuna_storage, args.study)
            path = f"{args.optuna_storage} study {points.name!r}"
        else:
            from boexplore.integrations.ax.experiment import load_snapshot_points

            points = load_snapshot_points(args.ax_snapshot)
            path = f"{args.ax_snapshot} experiment {points.name!r}"
        df = points_trace(points)
        args.minimize = points.minimize
        print(study_summary(points), file=sys.stderr)
        if args.write_points:
            df.to_csv(args.write_points, index=False)
            print(f"points written to {args.write_points}", file=sys.stderr)
    elif args.write_points:
        raise ValueError("--write-points needs --optuna-storage or --ax-snapshot")
    else:
        path = str(args.trace)
        df = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
    if "seed" in df.columns and df["seed"].nunique() > 1:
        seeds = sorted(df["seed"].unique())
        seed = seeds[0] if args.seed is None else args.seed
        if seed not in seeds:
            raise ValueError(f"{path}: no seed {seed}; the file holds seeds {seeds}")
        if args.seed is None:
            print(f"{path} holds seeds {seeds}: diagnosing seed {seed} (--seed)", file=sys.stderr)
        df = df[df["seed"] == seed]
    if "eval_index" in df.columns:
        df = df.sort_values("eval_index", kind="stable")
    cols = x_columns(df)
    if not cols:
        raise ValueError(f"{path}: no x_0 .. x_{{d-1}} columns")
    X = _unit_points(df[cols].to_numpy(np.float64), args.bounds, path)
    T = X.shape[0]
    y = df[args.y_column].to_numpy(np.float64) if args.y_column in df.columns else None
    if y is not None and args.minimize:
        y = -y
    if args.n_init is not None:
        n_init = args.n_init
    elif "is_initial" in df.columns:
        n_init = int(df["is_initial"].astype(bool).sum())
    elif "iteration" in df.columns:
        n_init = int((df["iteration"] == 0).sum())
    else:
        n_init = max(1, T // 5)
    rule = StopRule()
    over = {"window": args.window, "otsd_frac": args.otsd_frac}
    rule = dataclasses.replace(rule, **{k: v for k, v in over.items() if v is not None})
    th = MonitorThresholds()
    if args.over_ratio is not None:
        th = dataclasses.replace(th, over_ratio=args.over_ratio)
    tl = diagnose_points(X, y, n_init, thresholds=th, stop_rule=rule)
    if args.trace is None:  # a study or experiment: which trial each row is
        tl.insert(0, "trial", df["trial"].to_numpy())
    if args.output:
        tl.to_csv(args.output, index=False)
        print(f"wrote {len(tl)} rows to {args.output}", file=sys.stderr)
    else:
        tl.to_csv(sys.stdout, index=False, float_format="%.5g")
    t_stop = stop_at(tl)
    state = tl["state"].iloc[-1]
    if t_stop is None:
        print(f"stop rule: never fired in {T} evaluations", file=sys.stderr)
    else:
        gain = tl["best"].iloc[-1] - tl["best"].iloc[t_stop - 1]
        print(
            f"stop rule: would stop after {t_stop} of {T} evaluations (saves {T - t_stop}); "
            f"incumbent gained {gain:.4g} afterwards",
            file=sys.stderr,
        )
        print(load_stop_verdict(args.claims_tables).advice_line(), file=sys.stderr)
        if rule != StopRule():
            print(
                f"  (that verdict is the default rule's, {StopRule()}; yours, {rule}, is untested)",
                file=sys.stderr,
            )
    advice = suggest(state, args.method or "your method")
    print(
        f"final state: {state or 'none'}; advice: {', '.join(advice.suggestions)} ({advice.reason})",
        file=sys.stderr,
    )
    if args.figure:
        from boexplore.plotting.diagnostics import plot_timeline

        fig = plot_timeline(tl, th.over_ratio, title=f"{path} (d={X.shape[1]})")
        fig.savefig(args.figure, dpi=120)
        print(f"figure written to {args.figure}", file=sys.stderr)
    return 0
