"""The configuration reference page, generated from the JSON Schemas that validate a config.

The schemas (``boexplore.schema``) hold every key, type, default and description; this module
walks them and writes one table per section, so the reference cannot drift from what the
workflow accepts. ``python -m boexplore.reporting.config_docs`` rewrites
``docs/configuration.md``; ``--check`` exits 1 when the page is stale.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from boexplore.reporting.text_format import without_issue_refs
from boexplore.schema import load_schema

PAGE = Path("docs/configuration.md")
INTRO = """# Configuration reference

A run reads exactly one YAML file (`--configfile` replaces the default, it never merges).
Before any job runs the file is validated against the JSON Schemas shipped in
`boexplore.schema` (`src/boexplore/schema/*.schema.yaml`): unknown keys, wrong types and
out-of-range values stop the workflow with a message naming the key. Defaults are filled in
from the schemas, which are the only place they are written down.

This page is generated from those schemas (`python -m boexplore.reporting.config_docs`).
`<label>` stands for a key you choose (a problem or method label); `[]` for a list item.
The shipped configs are described in [Getting started](getting-started.md#the-configs).
"""
SECTIONS = (
    ("config", "Workflow (`config.yaml`)", None),
    ("analysis", "Paper-1 analysis (`analysis:`)", "analysis"),
    ("parametric", "Paper 2 (`parametric:`)", "parametric"),
    ("hyperparameters", "Hyperparameter study (`hyperparameters:`)", "hyperparameters"),
    ("combinatorial", "Beyond the box (`combinatorial:`, our extension)", "combinatorial"),
)


def _resolve(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow a local ``#/$defs/...`` reference (keys next to it override the target)."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return node
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part]
    return {**target, **{k: v for k, v in node.items() if k != "$ref"}}


def _type(node: Mapping[str, Any]) -> str:
    """Short type of a schema node: ``integer``, ``number | null``, ``list of string``, ..."""
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if "oneOf" in node and "type" not in node:
        return " | ".join(_type(alt) for alt in node["oneOf"])
    t = node.get("type", "any" if "$ref" not in node else "section")
    types = t if isinstance(t, list) else [t]
    if "array" in types and isinstance(node.get("items"), Mapping):
        item = node["items"].get("type", "any")
        item = " | ".join(item) if isinstance(item, list) else item
        types = [f"list of {item}" if x == "array" else x for x in types]
    if "object" in types and isinstance(node.get("additionalProperties"), Mapping):
        types = ["map" if x == "object" else x for x in types]
    return " | ".join(types)


def _default(node: Mapping[str, Any]) -> str:
    if "default" not in node:
        return ""
    text = json.dumps(node["default"], ensure_ascii=False)
    return f"`{text}`" if len(text) <= 40 else f"`{text[:37]}…`"


def _limits(node: Mapping[str, Any]) -> str:
    """Range and size limits as one short phrase (``≥ 1``, ``0 < x ≤ 1``, ``≥ 1 items``)."""
    out = []
    for key, sym in (("minimum", "≥"), ("exclusiveMinimum", ">")):
        if key in node:
            out.append(f"{sym} {node[key]}")
    for key, sym in (("maximum", "≤"), ("exclusiveMaximum", "<")):
        if key in node:
            out.append(f"{sym} {node[key]}")
    if "minItems" in node:
        out.append(f"≥ {node['minItems']} items")
    return ", ".join(out)


def _cell(text: str) -> str:
    """One table cell: whitespace collapsed, pipes escaped, ``<...>`` shown literally outside
    code spans (Markdown would read ``<run_name>`` as an HTML tag)."""
    parts = " ".join(without_issue_refs(str(text)).split()).replace("|", "\\|").split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


def rows(
    node: Mapping[str, Any], root: Mapping[str, Any], prefix: str = ""
) -> Iterator[tuple[str, str, str, str]]:
    """(key path, type, default, description) of every key under ``node``, depth first.

    A ``$ref`` to another schema file is listed as one row (that schema has its own section).
    """
    node = _resolve(node, root)
    required = set(node.get("required", []))
    for name, child in (node.get("properties") or {}).items():
        path = f"{prefix}{name}"
        child = _resolve(child, root)
        desc = child.get("description", "")
        if isinstance(child.get("$ref"), str) and not child["$ref"].startswith("#"):
            stem = child["$ref"].removesuffix(".yaml").removesuffix(".schema")
            desc = f"{desc} See [its section](#{stem}).".strip()
        extra = [x for x in (_limits(child), "required" if name in required else "") if x]
        if extra:
            desc = f"{desc} ({'; '.join(extra)})".strip()
        yield path, _type(child), _default(child), desc
        yield from rows(child, root, path + ".")
        items = child.get("items")
        if isinstance(items, Mapping) and (_resolve(items, root).get("properties")):
            yield from rows(items, root, path + "[].")
        extra_props = child.get("additionalProperties")
        if isinstance(extra_props, Mapping) and _resolve(extra_props, root).get("properties"):
            yield from rows(extra_props, root, path + ".<label>.")


def section_markdown(stem: str, title: str, key: str | None) -> list[str]:
    """One section: the schema's own description, then its table of keys."""
    schema = load_schema(stem)
    lines = [f"## {title} {{ #{stem} }}", ""]
    if schema.get("description"):
        lines += [" ".join(without_issue_refs(str(schema["description"])).split()), ""]
    where = f"`{key}.`" if key else "the top level"
    lines += [
        f"Keys under {where} (schema `{stem}.schema.yaml`).",
        "",
        "| key | type | default | description |",
        "|---|---|---|---|",
    ]
    for path, typ, default, desc in rows(schema, schema):
        lines.append(f"| `{path}` | {_cell(typ)} | {_cell(default)} | {_cell(desc)} |")
    return lines + [""]


def page_markdown() -> str:
    """The whole configuration reference page."""
    lines = [INTRO]
    for stem, title, key in SECTIONS:
        lines += section_markdown(stem, title, key)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the page (default ``docs/configuration.md``) or, with ``--check``, compare."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=PAGE)
    ap.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    args = ap.parse_args(argv)
    text = page_markdown()
    if args.check:
        current = args.out.read_text() if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale: run python -m boexplore.reporting.config_docs")
            return 1
        return 0
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
