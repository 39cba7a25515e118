"""docs/api.md: an API reference generated from the docstrings of the public packages.

For every package in ``PACKAGES`` the names in its ``__all__`` are listed with their
signature and docstring (classes with their public methods and properties). No
documentation tool is needed: ``python -m boexplore.reporting.api_docs`` rewrites the
page from the installed code.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path

PACKAGES: tuple[str, ...] = (
    "boexplore.metrics",
    "boexplore.diagnostics",
    "boexplore.compare",
    "boexplore.problems",
    "boexplore.bo",
    "boexplore.parametric",
    "boexplore.plotting",
)


def _signature(obj: object) -> str:
    try:
        return str(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "(...)"


def _doc(obj: object) -> str:
    return inspect.getdoc(obj) or "(no docstring)"


def _class_members(cls: type) -> list[str]:
    lines = []
    for name, member in sorted(vars(cls).items()):
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            lines += [f"- **`{name}`** (property): {_first(_doc(member))}"]
        elif inspect.isfunction(member) or isinstance(member, classmethod | staticmethod):
            fn = member.__func__ if isinstance(member, classmethod | staticmethod) else member
            lines += [f"- **`{name}{_signature(fn)}`**: {_first(_doc(fn))}"]
    return lines


def _first(doc: str) -> str:
    return doc.strip().split("\n\n")[0].replace("\n", " ")


def package_markdown(package: str) -> list[str]:
    """Markdown section for one package: its docstring, then each public name."""
    mod = importlib.import_module(package)
    lines = [f"## `{package}`", "", _doc(mod), ""]
    for name in sorted(getattr(mod, "__all__", [])):
        obj = getattr(mod, name)
        if inspect.isclass(obj):
            lines += [f"### class `{name}{_signature(obj)}`", "", _doc(obj), ""]
            members = _class_members(obj)
            lines += [*members, ""] if members else []
        elif callable(obj):
            lines += [f"### `{name}{_signature(obj)}`", "", _doc(obj), ""]
        else:
            lines += [f"### `{name}`", "", f"Constant: `{obj!r}`"[:300], ""]
    return lines


def api_markdown(packages: tuple[str, ...] = PACKAGES) -> str:
    """The whole API page."""
    lines = [
        "# API reference",
        "",
        "Generated from the docstrings by `python -m boexplore.reporting.api_docs` "
        "(public names: each package's `__all__`). Command-line tools: `boexplore --help`.",
        "",
        "Packages: " + ", ".join(f"[`{p}`](#{p.replace('.', '')})" for p in packages),
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
