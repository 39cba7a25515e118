"""Command-line entry point: ``boexplore <command> ...``.

Each subpackage contributes its commands through a ``cli`` module exposing
``register(subparsers)``; heavy imports (torch, botorch) happen inside the
command handlers so ``boexplore --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that contribute sub-commands, in help order.
COMMAND_MODULES: tuple[str, ...] = (
    "boexplore.metrics.cli",
    "boexplore.problems.cli",
    "boexplore.bo.cli",
    "boexplore.parametric.cli",
    "boexplore.analysis.cli",
    "boexplore.pipeline.cli",
)


def build_parser() -> argparse.ArgumentParser:
    """Create the top-level parser with every available sub-command."""
    from boexplore import __version__

    parser = argparse.ArgumentParser(
        prog="boexplore",
        description="Exploration metrics and BO replication tools.",
    )
    parser.add_argument("--version", action="version", version=f"boexplore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        print(f"boexplore {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
