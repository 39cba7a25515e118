"""The config JSON Schemas, shipped as package data so an installed wheel can validate configs.

``config.schema.yaml`` is the whole workflow config; it ``$ref``s ``analysis.schema.yaml``
(paper-1 analysis section), ``parametric.schema.yaml`` (paper-2 section),
``hyperparameters.schema.yaml`` (the hyperparameter study's rules) and
``combinatorial.schema.yaml`` (binary / categorical / mixed domains, our extension). Defaults live
in the schemas only; :func:`schema_defaults` reads them for code that needs the plain values.
"""

from __future__ import annotations

import copy
import functools
from importlib import resources
from pathlib import Path
from typing import Any

SCHEMA_NAMES: tuple[str, ...] = (
    "config",
    "analysis",
    "parametric",
    "hyperparameters",
    "combinatorial",
)


def schema_dir() -> Path:
    """Directory holding the ``*.schema.yaml`` files (inside the installed package)."""
    return Path(str(resources.files(__name__)))


def schema_path(name: str) -> Path:
    """Path of ``<name>.schema.yaml`` (``name`` may also be the file name)."""
    stem = name.removesuffix(".yaml").removesuffix(".schema")
    if stem not in SCHEMA_NAMES:
        raise KeyError(f"unknown schema {name!r}; known: {', '.join(SCHEMA_NAMES)}")
    return schema_dir() / f"{stem}.schema.yaml"


@functools.cache
def _load(stem: str) -> dict[str, Any]:
    import yaml

    return yaml.safe_load(schema_path(stem).read_text()) or {}


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema ``name`` (a fresh copy; callers may modify it)."""
    return copy.deepcopy(_load(schema_path(name).name.removesuffix(".schema.yaml")))


def schema_defaults(name: str) -> dict[str, Any]:
    """Every ``default`` of schema ``name``'s properties, nested objects filled recursively.

    An object property whose default is ``{}`` and that declares ``properties`` gets its
    children's defaults; other defaults are copied as written.
    """
    return _defaults(load_schema(name))


def _defaults(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, sub in node.get("properties", {}).items():
        if "properties" in sub and sub.get("default", {}) == {}:
            out[key] = _defaults(sub)
        elif "default" in sub:
            out[key] = copy.deepcopy(sub["default"])
    return out
