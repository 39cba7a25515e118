"""``boexplore run`` (one BO run -> trace parquet) and ``boexplore methods`` (method list)."""

from __future__ import annotations

import argparse
import io
import json
import logging
from pathlib import Path

from boexplore.bo.engine import stamp_trace
from boexplore.numerics import add_numerics_argument, ensure_profile


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``run`` and ``methods`` sub-commands."""
    p = sub.add_parser("run", help="run one BO trace (problem x method x seed) to a parquet file")
    p.add_argument("--problem", help="problem name (see `boexplore problems list`)")
    p.add_argument("--dim", type=int, default=None, help="problem dimension")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--instance-seed", type=int, default=0, help="problem instance seed")
    src.add_argument(
        "--problem-file", type=Path, help="problem instance JSON (overrides --problem)"
    )
    p.add_argument("--method", required=True, help="method spec, e.g. 'ucb(beta=16)+q4'")
    p.add_argument("--method-label", default=None, help="label stored in the trace's method column")
    p.add_argument("--problem-label", default=None, help="label stored in the problem column")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument(
        "--budget", type=int, required=True, help="total evaluations incl. initial design"
    )
    p.add_argument(
        "--n-init",
        type=int,
        default=None,
        help="initial Sobol points (default min(max(5, dim+1), budget//5), at least 2)",
    )
    p.add_argument(
        "--allow-large-init",
        action="store_true",
        help="accept an initial design larger than half the budget (refused by default)",
    )
    p.add_argument("--out", type=Path, required=True, help="output trace .parquet")
    p.add_argument("--checkpoint", type=Path, default=None, help="default: <out>.ckpt")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument(
        "--settings",
        default="{}",
        help='JSON dict of BO settings, e.g. \'{"num_restarts": 5, "acq_timeout": 60}\'',
    )
    p.add_argument("--quiet", action="store_true", help="no per-iteration progress lines")
    add_numerics_argument(p)
    p.set_defaults(func=_cmd_run)
    m = sub.add_parser("methods", help="list BO methods, their parameters and defaults")
    m.set_defaults(func=_cmd_methods)


def _cmd_methods(args: argparse.Namespace) -> int:
    from boexplore.bo.methods import describe_methods

    print(describe_methods())
    return 0


def _check_args(args: argparse.Namespace) -> None:
    """Argument errors before any problem is built or any evaluation made (names the flag)."""
    from boexplore.bo.checkpoint import default_checkpoint_path
    from boexplore.cli_checks import check_min, check_output_path

    check_min(args.seed, 0, "--seed")
    check_min(args.budget, 1, "--budget")
    check_min(args.dim, 1, "--dim")
    check_min(args.n_init, 1, "--n-init")
    check_min(args.threads, 1, "--threads")
    check_min(args.instance_seed, 0, "--instance-seed")
    if args.problem_file is None and not args.problem:
        raise ValueError("give --problem (with --dim) or --problem-file")
    if args.problem_file is not None and not args.problem_file.is_file():
        raise ValueError(f"--problem-file {args.problem_file}: no such file")
    check_output_path(args.out, "--out")
    check_output_path(args.checkpoint or default_checkpoint_path(args.out), "--checkpoint")


def _cmd_run(args: argparse.Namespace) -> int:
    _check_args(args)  # before a possible re-exec for the numerics profile
    ensure_profile(args.numerics)
    import torch

    from boexplore.bo.checkpoint import default_checkpoint_path, remove_checkpoint
    from boexplore.bo.design import resolve_n_init
    from boexplore.bo.identity import problem_file_digest
    from boexplore.bo.loop import run_bo
    from boexplore.io import atomic_write
    from boexplore.problems import get_problem, load_instance

    torch.set_num_threads(int(args.threads))
    if args.problem_file is not None:
        problem = load_instance(args.problem_file)
        label = args.problem_label or args.problem_file.stem
    elif args.problem:
        problem = get_problem(args.problem, args.dim, instance_seed=args.instance_seed)
        label = args.problem_label or problem.name
    else:
        raise ValueError("give --problem (with --dim) or --problem-file")
    if args.dim is not None and problem.dim != args.dim:
        raise ValueError(f"--dim {args.dim} does not match the problem's dim {problem.dim}")
    try:
        settings = json.loads(args.settings)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--settings is not valid JSON ({exc})") from None
    if not isinstance(settings, dict):
        raise ValueError("--settings must be a JSON object")
    n_init = resolve_n_init(args.n_init, problem.dim, args.budget, args.allow_large_init)
    ckpt = args.checkpoint or default_checkpoint_path(args.out)
    # a problem file is identified by its bytes (and data files), as in the workflow
    digest = problem_file_digest(args.problem_file) if args.problem_file is not None else None
    if not args.quiet:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    trace = run_bo(
        problem,
        args.method,
        seed=args.seed,
        budget=args.budget,
        n_init=n_init,
        checkpoint=ckpt,
        progress=not args.quiet,
        method_label=args.method_label,
        problem_label=label,
        problem_sha256=digest,
        **settings,
    )
    stamp_trace(trace)
    buf = io.BytesIO()
    trace.to_parquet(buf, index=False)
    atomic_write(buf.getvalue(), args.out)  # parquet bytes whatever the suffix
    remove_checkpoint(Path(ckpt))
    return 0
