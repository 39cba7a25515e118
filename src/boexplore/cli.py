"""Command-line entry point: ``boexplore <command> ...``.

Each subpackage contributes its commands through a ``cli`` module exposing
``register(subparsers)``; heavy imports (torch, botorch) happen inside the
command handlers so ``boexplore --help`` stays fast. A command whose package needs an
extra that is not installed (``pip install boexplore`` has numpy and scipy only) is left
out and named in the help epilog, so ``boexplore metrics`` works on the base install.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# Modules that contribute sub-commands, in help order.
COMMAND_MODULES: tuple[str, ...] = (
    "boexplore.metrics.cli",
    "boexplore.diagnostics.cli",
    "boexplore.problems.cli",
    "boexplore.bo.cli",
    "boexplore.parametric.cli",
    "boexplore.compare.cli",
    "boexplore.pipeline.cli",
)

# Descriptions for sub-commands whose modules register only a one-line help.
DESCRIPTIONS: dict[str, str] = {
    "run": "Run one Bayesian-optimisation trace (problem x method x seed) and write it as a "
    "parquet table (one row per evaluation, x_0..x_{d-1} in the unit cube). The run "
    "checkpoints after every iteration and resumes from the checkpoint when restarted. "
    "Example: boexplore run --problem branin --dim 2 --method logei --seed 0 --budget 20 "
    "--out branin_logei.parquet",
    "methods": "List the BO methods with their parameters and defaults, and the method-spec "
    "syntax used by `boexplore run --method` and the workflow config (e.g. 'ucb(beta=16)+q4').",
    "problems": "Benchmark problems: `list` shows every registered problem with its dimensions "
    "and options; `show` plots a 2-d slice of one.",
    "parametric": "Paper 2 (randomized regularized neural-network policies on finite domains): "
    "`run` runs one policy and writes its trace; `policies` lists the presets.",
}


#: Third-party module -> the extra that installs it (for "pip install 'boexplore[...]'" hints).
EXTRA_OF: dict[str, str] = {
    **dict.fromkeys(("torch", "botorch", "gpytorch", "linear_operator"), "bo"),
    **dict.fromkeys(
        ("pandas", "pyarrow", "matplotlib", "seaborn", "yaml", "jsonschema", "snakemake"),
        "pipeline",
    ),
    **dict.fromkeys(("gymnasium", "Box2D", "mujoco"), "realworld"),
}


def missing_extra_hint(exc: ImportError) -> str:
    """`` (install it with pip install 'boexplore[bo]')`` when ``exc`` is a missing extra."""
    module = (getattr(exc, "name", None) or "").split(".")[0]
    extra = EXTRA_OF.get(module)
    return f" (install it with pip install 'boexplore[{extra}]')" if extra else ""


def build_parser() -> argparse.ArgumentParser:
    """Create the top-level parser with every available sub-command."""
    from boexplore import __version__

    parser = argparse.ArgumentParser(
        prog="boexplore",
        description="Exploration metrics and BO replication tools.",
    )
    parser.add_argument("--version", action="version", version=f"boexplore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    missing: list[str] = []
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            dependency = (exc.name or "").split(".")[0]
            if dependency and dependency != "boexplore":  # an optional extra is not installed
                missing.append(f"{name.split('.')[1]} (needs {dependency})")
                continue
            raise
        module.register(sub)
    if missing:
        parser.epilog = (
            "Commands not available in this install: "
            + ", ".join(missing)
            + ". Install them with pip install 'boexplore[all]'."
        )
    for name, text in DESCRIPTIONS.items():
        if name in sub.choices and not sub.choices[name].description:
            sub.choices[name].description = text
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader (e.g. `| head`) closed the pipe: stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except (ValueError, FileNotFoundError, KeyError, ImportError) as exc:
        hint = missing_extra_hint(exc) if isinstance(exc, ImportError) else ""
        print(f"boexplore {args.command}: error: {exc}{hint}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
