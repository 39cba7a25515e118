"""``boexplore compare TRACE... --problem P --dim d``: place your traces among reference methods."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boexplore.metrics.cli import add_bounds

DEFAULT_REFERENCE = "results/default"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compare`` sub-command."""
    p = subparsers.add_parser(
        "compare",
        help="place your own BO traces among the reference methods of a finished run",
        description="Score TRACE files (csv/parquet/npy; rows = points in acquisition order) "
        "with normalised OTSD and oe_rel (OE minus that of uniform random points) and place "
        "them among the reference methods of a finished workflow run on the same problem: "
        "percentiles over all reference runs, the nearest methods, and a figure. Both sides "
        "are scored at the same number of points n.",
    )
    p.add_argument("traces", nargs="+", metavar="TRACE", help="trace files; a seed column splits")
    p.add_argument("--problem", required=True, help="problem label of the run or problem name")
    p.add_argument("--dim", type=int, required=True, help="problem dimension d")
    p.add_argument(
        "--reference",
        default=DEFAULT_REFERENCE,
        help=f"finished run directory results/<run> (default {DEFAULT_REFERENCE})",
    )
    p.add_argument("--n", type=int, default=None, help="compare at this many points (default: "
                   "the shorter of your traces and the reference budget)")  # fmt: skip
    add_bounds(p)
    p.add_argument("--x-columns", nargs="+", metavar="COL", help="columns holding the coordinates")
    p.add_argument("--figure", default="compare.png", help="figure path (default compare.png)")
    p.add_argument("--no-figure", action="store_true", help="do not write a figure")
    p.add_argument("--top", type=int, default=5, help="how many nearest methods to list")
    p.add_argument("--oe-reps", type=int, default=16, help="uniform replicates for oe_rel")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from boexplore.compare.core import load_reference, load_user_traces, place
    from boexplore.metrics.cli import parse_bounds
    from boexplore.metrics.oe_baseline import UniformOEBaseline

    ref = load_reference(args.reference, args.problem, args.dim)
    bounds = parse_bounds(args.bounds, args.dim)
    user = load_user_traces(args.traces, args.x_columns, bounds)
    result = place(user, ref, UniformOEBaseline(n_rep=args.oe_reps, seed=0), n=args.n)
    print(f"# problem {ref.problem} (d={ref.dim}) from {ref.run_dir}, n = {result.n}")
    for note in result.notes:
        print(f"# note: {note}")
    print("\n## your traces (percentiles among all reference runs)")
    print(result.user.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"\n## nearest reference methods (top {args.top}; scaled distance of medians)")
    print(result.methods.head(args.top).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if "layer" in result.methods.columns:
        print("# layer: level in the run's OTSD taxonomy over all problems (0 = explores most)")
    if not args.no_figure:
        out = _figure(result, f"{ref.problem} (d={ref.dim})", Path(args.figure))
        print(f"\nwrote {out}", file=sys.stderr)
    return 0


def _figure(result, title: str, path: Path) -> Path:
    from boexplore.compare.figure import placement_figure

    return placement_figure(result, title, path)
