"""Reading a domain description: the compact text form, JSON, or a JSON file.

Compact form (the ``--domain`` option): comma-separated ``kind[(args)][*count]`` tokens, e.g.
``binary*10,categorical(5)*3,integer(0,20),continuous(-5,5)*2``; ``continuous`` alone is
[0, 1]. JSON: a list of ``{"type": kind, "count": n, ...}`` objects (``levels`` for
categorical, ``lower`` / ``upper`` for integer and continuous), or ``{"variables": [...]}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from boexplore.metrics.domain.variables import (
    Binary,
    Categorical,
    Continuous,
    Domain,
    DomainError,
    Integer,
    Variable,
)

_TOKEN = re.compile(r"^\s*([a-z]+)\s*(?:\(([^()]*)\))?\s*(?:\*\s*(\d+))?\s*$")
_TOP_COMMA = re.compile(r",(?![^()]*\))")  # commas outside parentheses
_ALIASES = {
    "binary": "binary", "bin": "binary",
    "categorical": "categorical", "cat": "categorical",
    "integer": "integer", "int": "integer",
    "continuous": "continuous", "cont": "continuous", "real": "continuous",
}  # fmt: skip
_KEYS = {
    "binary": set(),
    "categorical": {"levels"},
    "integer": {"lower", "upper"},
    "continuous": {"lower", "upper"},
}


def parse_domain(spec: str | Mapping[str, Any] | Sequence[Any] | Domain) -> Domain:
    """A :class:`Domain` from the compact text form, a JSON text / file, or its parsed JSON."""
    if isinstance(spec, Domain):
        return spec
    if isinstance(spec, str):
        text = spec.strip()
        if text.startswith(("[", "{")):
            try:
                return parse_domain(json.loads(text))
            except json.JSONDecodeError as exc:
                raise DomainError(f"domain: not valid JSON ({exc})") from None
        if text.lower().endswith(".json"):
            path = Path(text)
            if not path.is_file():
                raise DomainError(f"domain: no such file {text!r}")
            return parse_domain(path.read_text())
        tokens = _TOP_COMMA.split(text)
        return Domain(tuple(v for token in tokens for v in _compact(token)))
    if isinstance(spec, Mapping):
        if set(spec) != {"variables"}:
            raise DomainError(
                f"domain: a JSON object needs exactly the key 'variables', got {sorted(spec)}"
            )
        return parse_domain(spec["variables"])
    if isinstance(spec, Sequence):
        return Domain(tuple(v for entry in spec for v in _entry(entry)))
    raise DomainError(f"domain: cannot read a description from {type(spec).__name__}")


def _make(kind: str, args: Mapping[str, Any]) -> Variable:
    try:
        if kind == "binary":
            return Binary()
        if kind == "categorical":
            return Categorical(_integer(args["levels"], "levels"))
        if kind == "integer":
            return Integer(_integer(args["lower"], "lower"), _integer(args["upper"], "upper"))
        return Continuous(float(args.get("lower", 0.0)), float(args.get("upper", 1.0)))
    except KeyError as exc:
        raise DomainError(f"domain: {kind} needs {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, DomainError):
            raise
        raise DomainError(f"domain: bad {kind} arguments {dict(args)} ({exc})") from None


def _integer(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise DomainError(f"domain: {what} must be an integer, got {value!r}")
    return int(value)


def _count(value: Any) -> int:
    n = _integer(value, "count")
    if n < 1:
        raise DomainError(f"domain: count must be >= 1, got {n}")
    return n


def _kind(name: str) -> str:
    kind = _ALIASES.get(str(name).strip().lower())
    if kind is None:
        raise DomainError(
            f"domain: unknown variable kind {name!r}; expected binary, categorical, integer "
            f"or continuous"
        )
    return kind


def _compact(token: str) -> tuple[Variable, ...]:
    m = _TOKEN.match(token.lower())
    if not m:
        raise DomainError(f"domain: cannot read {token.strip()!r}; expected kind[(args)][*count]")
    kind = _kind(m.group(1))
    raw = [a.strip() for a in m.group(2).split(",")] if m.group(2) not in (None, "") else []
    names = {"binary": (), "categorical": ("levels",), "integer": ("lower", "upper")}.get(
        kind, ("lower", "upper")
    )
    if len(raw) not in ({len(names), 0} if kind == "continuous" else {len(names)}):
        raise DomainError(
            f"domain: {kind} takes arguments ({', '.join(names)}), got {token.strip()!r}"
        )
    try:
        values = [float(a) for a in raw]
    except ValueError:
        raise DomainError(f"domain: arguments of {token.strip()!r} must be numbers") from None
    count = _count(int(m.group(3))) if m.group(3) else 1
    args = dict(zip(names, values, strict=True)) if values else {}
    return (_make(kind, args),) * count


def _entry(entry: Any) -> tuple[Variable, ...]:
    if not isinstance(entry, Mapping) or "type" not in entry:
        raise DomainError(f"domain: each entry needs a 'type', got {entry!r}")
    kind = _kind(entry["type"])
    extra = set(entry) - {"type", "count"} - _KEYS[kind]
    if extra:
        raise DomainError(f"domain: {kind} does not take {sorted(extra)}")
    return (_make(kind, entry),) * _count(entry.get("count", 1))
