"""What determines a BO trace, as a JSON-able dict and its sha256 (a checkpoint's identity).

(problem instance, method spec, settings, seed, n_init, engine) fix every number of a trace
(``bo/loop.py``). The budget is deliberately not part of it: a run whose budget grows
continues from its state (the prefix is unchanged); ``bo/loop.py`` checks that case. Labels
are not part of it either: they only name the trace's columns.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from boexplore.bo.engine import engine_identity


def _sha256_json(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def problem_digest(problem: Any) -> str:
    """sha256 of the instance's spec (``to_spec()``: name, dim, instance seed, options, ...).

    Objects without ``to_spec`` (ad-hoc test problems) are identified by class, name and dim
    only; pass ``problem_digest=`` to ``run_bo`` for anything richer.
    """
    to_spec = getattr(problem, "to_spec", None)
    if callable(to_spec):
        return _sha256_json(to_spec())
    kind = type(problem)
    return _sha256_json(
        {
            "class": f"{kind.__module__}.{kind.__qualname__}",
            "name": getattr(problem, "name", None),
            "dim": int(problem.dim),
        }
    )


def problem_file_digest(path_json: str | Path) -> str:
    """sha256 of a saved instance: the JSON's bytes, then each data file it names (by key)."""
    path = Path(path_json)
    raw = path.read_bytes()
    h = hashlib.sha256(raw)
    try:
        files = dict(json.loads(raw).get("data_files") or {})
    except (ValueError, AttributeError):
        files = {}
    for key in sorted(files):
        data = path.parent / str(files[key])
        h.update(f"\0{key}\0".encode())
        h.update(data.read_bytes() if data.is_file() else b"<missing>")
    return h.hexdigest()


def run_identity(
    problem_sha256: str,
    dim: int,
    method_spec: str,
    seed: int,
    n_init: int,
    settings: Mapping[str, Any],
) -> dict[str, Any]:
    """Everything that determines a trace's numbers (``method_spec`` in canonical form)."""
    return {
        "problem_sha256": problem_sha256,
        "dim": int(dim),
        "method_spec": method_spec,
        "seed": int(seed),
        "n_init": int(n_init),
        "settings": dict(settings),
        "engine": engine_identity(),
    }


def identity_sha256(identity: Mapping[str, Any]) -> str:
    """Stable sha256 of an identity dict (sorted-key JSON)."""
    return _sha256_json(dict(identity))


def identity_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Top-level keys whose values differ (``engine``, ``problem_sha256``, ...), sorted."""
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
