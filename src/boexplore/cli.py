"""Command-line entry point: ``boexplore <command> ...``.

Each subpackage contributes its commands through a ``cli`` module exposing
``register(subparsers)``; heavy imports (torch, botorch) happen inside the
command handlers so ``boexplore --help`` stays fast. A command whose package needs an
extra that is not installed (``pip install boexplore`` has numpy and scipy only) is left
out and named in the help epilog, so ``boexplore metrics`` works on the base install.

The ``boexplore`` console script is :func:`console_main`: it owns its process, so it puts the
numerics profile its command asks for (``run`` / ``parametric run --numerics``, ``verify
--profile`` or the config's ``numerics.profile``) into its environment before numpy or torch
is imported. :func:`main` with an argument list is the CLI as a library function: it never
re-executes the calling process (``boexplore.numerics.ensure_profile``).
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
    "optuna": "optuna",
    "ax": "ax",
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


def _option(argv: list[str], name: str) -> str | None:
    """Value of the last ``--name VALUE`` / ``--name=VALUE`` in ``argv`` (None: absent)."""
    value = None
    for i, token in enumerate(argv):
        if token == name and i + 1 < len(argv):
            value = argv[i + 1]
        elif token.startswith(name + "="):
            value = token.split("=", 1)[1]
    return value


def numerics_request(argv: list[str]) -> tuple[str, dict[str, str]] | None:
    """(profile, overrides) the command in ``argv`` will ask ``ensure_profile`` for, read
    from the arguments alone (no numeric import); None for a command that pins nothing.

    Mirrors the handlers: ``run`` and ``parametric run`` take ``--numerics`` (default
    ``$BOEXPLORE_NUMERICS`` or portable); ``verify`` (BO re-runs) takes ``--profile``, else
    the config's ``numerics.profile``, and ``--env`` overrides; ``restore`` (scoring) the
    config's profile. A request it cannot read
    (an abbreviated option, an unreadable config) is None: the handler still pins, and the
    console script then re-executes itself once.
    """
    from boexplore import numerics

    words = [t for t in argv if not t.startswith("-")]
    command = words[0] if words else None
    if command == "run" or (command == "parametric" and words[1:2] == ["run"]):
        name = _option(argv, "--numerics") or os.environ.get(
            numerics.PROFILE_VAR, numerics.DEFAULT_PROFILE
        )
        return (name, {}) if name in numerics.PROFILES else None
    if command not in ("verify", "restore") or "--integrity" in argv:
        return None
    name = _option(argv, "--profile") if command == "verify" else None
    if name is None:
        configfile = _option(argv, "--configfile")
        if configfile is None:
            return None
        try:
            from boexplore.workflow_config import numerics_profile, read_yaml

            name = numerics_profile(read_yaml(configfile) or {})
        except Exception:  # noqa: BLE001 - the handler reports a bad config
            return None
    overrides: dict[str, str] = {}
    if "--env" in argv:
        for token in argv[argv.index("--env") + 1 :]:
            if token.startswith("-") or "=" not in token:
                break
            key, value = token.split("=", 1)
            overrides[key] = value
    return (name, overrides) if name in numerics.PROFILES else None


def console_main() -> int:
    """The ``boexplore`` console script (``[project.scripts]``) and ``python -m boexplore``.

    It owns its process: before anything imports numpy or torch it puts the numerics profile
    the command asks for into its environment (:func:`numerics_request`), and only here may
    ``ensure_profile`` fall back to re-executing the process once.
    """
    from boexplore import numerics

    argv = sys.argv[1:]
    request = numerics_request(argv)
    if request is not None:
        numerics.pin_process(*request)
    numerics.allow_reexec()
    return main(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI in this process; returns the exit code.

    As a library call (``main(["run", ...])``) it never re-executes the calling process: a
    numerics profile that cannot be applied any more (numpy or torch already loaded) is
    skipped with a warning. ``main()`` without arguments reads this process's command line,
    i.e. acts as the program: it is :func:`console_main` (console-script wrappers made
    before ``console_main`` existed call it so).
    """
    if argv is None:
        return console_main()
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
    sys.exit(console_main())
