"""``boexplore metrics POINTS`` : per-iteration OTSD, normalised OTSD and OE of a points file."""

from __future__ import annotations

import argparse
import sys

BOUNDS_HELP = (
    "search box to rescale to [0,1]^d: 'LO HI' for every dimension, or d lows then d highs"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``metrics`` sub-command."""
    p = subparsers.add_parser(
        "metrics",
        help="exploration metrics (OTSD, OE) of a sequence of points",
        description="Per-prefix OTSD, normalised OTSD, Psi, OE (kl and reference), oe_rel "
        "(OE minus the mean OE of uniform random points of the same size and dimension, so 0 "
        "means 'as spread as random search') and tour lower bounds of the points in POINTS "
        "(rows in acquisition order).",
    )
    p.add_argument("points", help="file with points: .csv, .npy or .parquet (rows = points)")
    p.add_argument("-o", "--output", help="write a CSV here instead of printing it")
    add_bounds(p)
    p.add_argument(
        "--columns",
        "--x-columns",
        dest="x_columns",
        nargs="+",
        metavar="COL",
        help="table columns holding the point coordinates (default: x_0, x_1, ...; a table "
        "without them must name its columns unless every column is a plain numeric coordinate)",
    )
    p.add_argument(
        "--oe-reps",
        type=int,
        default=16,
        metavar="R",
        help="uniform-point replicates averaged for the oe_rel baseline (default 16; 0 = no oe_rel); "
        "with --domain, random-search replicates for otsd_rel and oe_rel",
    )
    p.add_argument(
        "--domain",
        metavar="SPEC",
        help="points are raw values on this domain (our extension, not the paper's): "
        "comma-separated kind[(args)][*count] tokens, e.g. 'binary*10,categorical(5)*3,"
        "integer(0,20),continuous(-5,5)*2', or a JSON list / .json file of "
        '{"type": ..., "count": ...} entries; prints OTSD, its bounds, OE and, with --oe-reps, '
        "otsd_rel / oe_rel against random search on the domain",
    )
    p.set_defaults(func=_run)


def add_bounds(p: argparse.ArgumentParser, help: str = BOUNDS_HELP) -> None:
    """The ``--bounds V...`` option (read back by :func:`parse_bounds`) of every command that
    takes points: ``metrics``, ``compare`` and ``diagnose``."""
    p.add_argument("--bounds", nargs="+", type=float, metavar="V", help=help)


def parse_bounds(values: list[float] | None, d: int):
    """The ``--bounds`` numbers as a (2, d) array: 'LO HI' for every dimension or d lows + d highs."""
    import numpy as np

    if values is None:
        return None
    if len(values) == 2:
        return np.array([[values[0]] * d, [values[1]] * d])
    if len(values) == 2 * d:
        return np.array([values[:d], values[d:]])
    raise ValueError(f"--bounds needs 2 or 2*d = {2 * d} numbers, got {len(values)}")


def _unit_points(raw, bounds: list[float] | None, name: str):
    """Validated unit-cube points; the out-of-box error names the CLI flag, not the Python API."""
    from boexplore.metrics.validation import as_points

    try:
        return as_points(raw, parse_bounds(bounds, raw.shape[1]), name=name)
    except ValueError as exc:
        msg = str(exc)
        if "unit cube" in msg and bounds is None:
            msg = msg.split("; pass bounds")[0]
            raise ValueError(
                f"{msg}; pass --bounds LO HI (same box in every dimension) or "
                f"--bounds followed by {raw.shape[1]} lows then {raw.shape[1]} highs to rescale"
            ) from None
        raise


def _run(args: argparse.Namespace) -> int:
    from boexplore.metrics.io import load_points, write_csv

    raw = load_points(args.points, args.x_columns)
    if raw.ndim != 2:
        raise ValueError(f"points must form a 2-D array (T, d), got shape {raw.shape}")
    if args.domain is not None:
        table = _domain_table(raw, args)
    else:
        table = _box_table(raw, args)
    if args.output:
        with open(args.output, "w", newline="") as fh:
            write_csv(table, fh)
        print(f"wrote {len(table['n'])} rows to {args.output}", file=sys.stderr)
    else:
        write_csv(table, sys.stdout)
    return 0


def _domain_table(raw, args: argparse.Namespace) -> dict:
    """The domain metrics of raw points (``--domain``); a point off the domain is a DomainError."""
    from boexplore.metrics.domain import (
        DomainError,
        RandomSearchReference,
        domain_metrics_table,
        parse_domain,
    )

    if args.bounds is not None:
        raise DomainError("--bounds applies to the box; with --domain give ranges in the spec")
    domain = parse_domain(args.domain)
    if args.oe_reps < 0:
        raise ValueError(f"--oe-reps must be >= 0, got {args.oe_reps}")
    reference = RandomSearchReference(n_rep=args.oe_reps, seed=0) if args.oe_reps else None
    return domain_metrics_table(raw, domain, reference, name=args.points)


def _box_table(raw, args: argparse.Namespace) -> dict:
    """The paper's metrics of points in a box (rescaled by ``--bounds``)."""
    from boexplore.metrics.scoring import metrics_table

    X = _unit_points(raw, args.bounds, args.points)
    table = dict(metrics_table(X))
    if args.oe_reps > 0:
        from boexplore.metrics.oe_baseline import UniformOEBaseline

        base = UniformOEBaseline(n_rep=args.oe_reps, seed=0).curve(X.shape[1], X.shape[0])
        table["oe_uniform"] = base
        table["oe_rel"] = table["oe_kl_all"] - base
    return table
