"""``boexplore parametric ...``: run one paper-2 policy on a finite problem, list policies."""

from __future__ import annotations

import argparse
import json

from boexplore.bo.engine import stamp_trace
from boexplore.numerics import add_numerics_argument, ensure_profile


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``parametric`` command group to the top-level CLI."""
    p = subparsers.add_parser(
        "parametric", help="paper 2: randomized regularized NN policies on finite domains"
    )
    sub = p.add_subparsers(dest="parametric_command", metavar="SUBCOMMAND")
    run = sub.add_parser(
        "run", help="run one policy on a finite-domain problem and write its trace"
    )
    run.add_argument(
        "--problem", required=True, help="finite problem name (nn_realizable, gp_sample)"
    )
    run.add_argument("--dim", type=int, default=1)
    run.add_argument("--instance-seed", type=int, default=0)
    run.add_argument("--n-points", type=int, default=128)
    run.add_argument(
        "--policy", required=True, help="policy preset (see `boexplore parametric policies`)"
    )
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="policy setting override, e.g. --set lam=10 --set width=128 (JSON values)",
    )
    run.add_argument("--seed", type=int, nargs="+", default=[0], help="one or more seeds (batched)")
    run.add_argument("--rounds", type=int, default=100)
    run.add_argument("--n-init", type=int, default=5)
    run.add_argument("--noise-std", type=float, default=0.1)
    run.add_argument("--out", required=True, help="output trace (.parquet or .csv)")
    add_numerics_argument(run)
    run.set_defaults(func=_run)
    pol = sub.add_parser("policies", help="list policy presets and their settings")
    pol.set_defaults(func=_policies)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1] if not args.parametric_command else 0)


def _parse_overrides(items: list[str]) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--set expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def _run(args: argparse.Namespace) -> int:
    ensure_profile(args.numerics)
    from boexplore.io import atomic_write
    from boexplore.parametric.loop import run_policy
    from boexplore.parametric.policies import make_policy
    from boexplore.problems import get_problem

    problem = get_problem(
        args.problem, dim=args.dim, instance_seed=args.instance_seed, n_points=args.n_points
    )
    policy = make_policy(args.policy, **_parse_overrides(args.set))
    trace, _ = run_policy(
        problem,
        policy,
        list(args.seed),
        args.rounds,
        args.n_init,
        args.noise_std,
        method=args.policy,
    )
    atomic_write(stamp_trace(trace), args.out)
    last = trace.groupby("seed").tail(1)
    print(
        f"{args.policy} on {args.problem}: final cumulative regret {last['cum_regret'].mean():.4g} "
        f"(mean over {len(last)} seeds) -> {args.out}"
    )
    return 0


def _policies(args: argparse.Namespace) -> int:
    from boexplore.parametric.policies import PRESETS, make_policy

    for name in PRESETS:
        spec = make_policy(name)
        print(
            f"{name:14s} {json.dumps({k: v for k, v in spec.to_dict().items() if k in PRESETS[name] or k == 'kind'})}"
        )
    return 0
