"""``boexplore metrics POINTS`` : per-iteration OTSD, normalised OTSD and OE of a points file."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``metrics`` sub-command."""
    p = subparsers.add_parser(
        "metrics",
        help="exploration metrics (OTSD, OE) of a sequence of points",
        description="Per-prefix OTSD, normalised OTSD, Psi, OE (kl and reference) and tour "
        "lower bounds of the points in POINTS (rows in acquisition order).",
    )
    p.add_argument("points", help="file with points: .csv, .npy or .parquet (rows = points)")
    p.add_argument("-o", "--output", help="write a CSV here instead of printing it")
    p.add_argument(
        "--bounds",
        nargs="+",
        type=float,
        metavar="V",
        help="search box to rescale to [0,1]^d: 'LO HI' for every dimension, or d lows then d highs",
    )
    p.add_argument(
        "--x-columns", nargs="+", metavar="COL", help="table columns holding the point coordinates"
    )
    p.set_defaults(func=_run)


def _bounds(values: list[float] | None, d: int):
    import numpy as np

    if values is None:
        return None
    if len(values) == 2:
        return np.array([[values[0]] * d, [values[1]] * d])
    if len(values) == 2 * d:
        return np.array([values[:d], values[d:]])
    raise ValueError(f"--bounds needs 2 or 2*d = {2 * d} numbers, got {len(values)}")


def _run(args: argparse.Namespace) -> int:
    from boexplore.metrics.io import load_points, write_csv
    from boexplore.metrics.scoring import metrics_table
    from boexplore.metrics.validation import as_points

    raw = load_points(args.points, args.x_columns)
    if raw.ndim != 2:
        raise ValueError(f"points must form a 2-D array (T, d), got shape {raw.shape}")
    X = as_points(raw, _bounds(args.bounds, raw.shape[1]), name=args.points)
    table = metrics_table(X)
    if args.output:
        with open(args.output, "w", newline="") as fh:
            write_csv(table, fh)
        print(f"wrote {len(table['n'])} rows to {args.output}", file=sys.stderr)
    else:
        write_csv(table, sys.stdout)
    return 0
