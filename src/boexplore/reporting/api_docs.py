"""docs/api.md: the API reference page, rendered from the docstrings by mkdocstrings.

The page holds one ``::: package`` directive per public package with the names of its
``__all__``; ``mkdocs build`` reads signatures and docstrings from the code (no hand-written
copy that drifts). ``python -m boexplore.reporting.api_docs`` rewrites the page when a
package is added; a test checks it is current.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

PACKAGES: tuple[str, ...] = (
    "boexplore.metrics",
    "boexplore.diagnostics",
    "boexplore.integrations.optuna",
    "boexplore.integrations.ax",
    "boexplore.compare",
    "boexplore.problems",
    "boexplore.bo",
    "boexplore.parametric",
    "boexplore.plotting",
)


def package_markdown(package: str) -> list[str]:
    """The section of one package: a heading and its mkdocstrings directive."""
    names = sorted(getattr(importlib.import_module(package), "__all__", []))
    lines = [f"## `{package}`", "", f"::: {package}", "    options:", "      members:"]
    lines += [f"        - {name}" for name in names]
    return lines + [""]


def api_markdown(packages: tuple[str, ...] = PACKAGES) -> str:
    """The whole API page."""
    lines = [
        "# API reference",
        "",
        "Rendered from the docstrings (public names: each package's `__all__`). "
        "Command-line tools: `boexplore --help`. This page is written by "
        "`python -m boexplore.reporting.api_docs`.",
        "",
    ]
    for package in packages:
        lines += package_markdown(package)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the API page (default docs/api.md)."""
    ap = argparse.ArgumentParser(description="Write the API reference page.")
    ap.add_argument("--out", type=Path, default=Path("docs/api.md"))
    args = ap.parse_args(argv)
    args.out.write_text(api_markdown(), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
