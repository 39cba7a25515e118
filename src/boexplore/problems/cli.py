"""``boexplore problems list|show``: inspect the benchmark registry from the shell."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``problems`` command and its sub-commands to the top-level CLI."""
    parser = subparsers.add_parser("problems", help="list and plot benchmark problems")
    sub = parser.add_subparsers(dest="problems_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])

    p_list = sub.add_parser("list", help="show every registered problem")
    p_list.set_defaults(func=_cmd_list)

    p_show = sub.add_parser("show", help="plot a 2-d slice of a problem")
    p_show.add_argument("name", help="problem name (see `boexplore problems list`)")
    p_show.add_argument("--dim", type=int, default=None, help="dimension (default: problem's)")
    p_show.add_argument("--seed", type=int, default=0, help="instance seed")
    p_show.add_argument("-o", "--output", default=None, help="output image (default NAME_dD.png)")
    p_show.add_argument(
        "--dims", type=int, nargs=2, default=None, metavar=("I", "J"), help="coordinates to vary"
    )
    p_show.add_argument("--grid", type=int, default=60, help="grid points per axis")
    p_show.set_defaults(func=_cmd_show)


def _cmd_list(args: argparse.Namespace) -> int:
    from boexplore.problems import list_problems

    rows = [
        (
            info.name,
            info.dims,
            "-" if info.default_dim is None else str(info.default_dim),
            info.kind,
            "yes" if info.has_optimum else "no",
            info.source,
        )
        for info in list_problems()
    ]
    header = ("name", "dims", "default", "kind", "optimum", "source")
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(5)]
    for row in [header, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row[:5], widths, strict=True)) + "  " + row[5])
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from boexplore.problems import get_problem
    from boexplore.problems.show import plot_slice

    problem = get_problem(args.name, dim=args.dim, instance_seed=args.seed)
    out = args.output or f"{problem.name}_d{problem.dim}.png"
    dims = tuple(args.dims) if args.dims is not None else None
    path = plot_slice(problem, out, dims=dims, grid=args.grid)
    print(f"wrote {path}")
    return 0
