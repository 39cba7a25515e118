"""Materialise problem instances as JSON specs and re-create them exactly.

``save_instance`` writes ``<path>.json`` (atomically) plus any generated data
files in a per-instance directory ``<stem>_data/`` next to it; the spec refers
to those files by paths relative to the json. ``load_instance`` /
``from_spec`` re-create the instance through the registry, handing data files
to the factory as absolute paths (``data_files=``; see ``base.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from boexplore.io import atomic_write_text
from boexplore.problems.base import Problem
from boexplore.problems.registry import get_problem, problem_info

SPEC_VERSION = 1


def from_spec(spec: dict[str, Any], base_dir: str | Path | None = None) -> Problem:
    """Re-create a problem from ``Problem.to_spec()`` output.

    ``base_dir`` resolves relative ``data_files`` paths (``load_instance``
    passes the json's directory); absolute paths are used as they are.
    """
    if not isinstance(spec, dict) or "name" not in spec or "dim" not in spec:
        raise ValueError("problem spec must be a dict with at least 'name' and 'dim'")
    name = spec["name"]
    problem_info(name)  # KeyError listing the known problems when unregistered
    options = dict(spec.get("options") or {})
    noise_std = float(spec.get("noise_std") or 0.0)
    if noise_std > 0:
        options["noise_std"] = noise_std
    data_files = spec.get("data_files")
    if data_files:
        root = Path(base_dir) if base_dir is not None else Path.cwd()
        options["data_files"] = {
            key: str((root / rel).resolve()) for key, rel in dict(data_files).items()
        }
    problem = get_problem(
        name, dim=int(spec["dim"]), instance_seed=int(spec.get("instance_seed", 0)), **options
    )
    _check_consistent(problem, spec)
    return problem


def _check_consistent(problem: Problem, spec: dict[str, Any]) -> None:
    """Fail loudly when the re-created instance does not match what was saved."""
    if problem.name != spec["name"] or problem.dim != int(spec["dim"]):
        raise ValueError(
            f"{spec['name']}: spec re-created {problem.name!r} with dim {problem.dim}, "
            f"expected dim {spec['dim']}"
        )
    saved_options = spec.get("options") or {}
    now = json.loads(json.dumps(problem._spec_options()))
    if now != json.loads(json.dumps(saved_options)):
        raise ValueError(
            f"{spec['name']}: re-created options {now} differ from saved {saved_options}"
        )


def data_dir_for(path_json: str | Path) -> Path:
    """Directory reserved for the data files of the instance saved at ``path_json``."""
    path = Path(path_json)
    return path.parent / f"{path.stem}_data"


def save_instance(problem: Problem, path_json: str | Path) -> Path:
    """Write ``problem``'s spec (and its data files) so ``load_instance`` can re-create it."""
    path = Path(path_json)
    path.parent.mkdir(parents=True, exist_ok=True)
    spec = problem.to_spec()
    data_dir = data_dir_for(path)
    data_dir.mkdir(exist_ok=True)
    written = problem.write_data(data_dir)
    if written:
        spec["data_files"] = {
            key: (data_dir / name).relative_to(path.parent).as_posix()
            for key, name in written.items()
        }
    elif not any(data_dir.iterdir()):
        data_dir.rmdir()  # no data: leave only the json behind
    spec["spec_version"] = SPEC_VERSION
    atomic_write_text(json.dumps(spec, indent=2, sort_keys=True) + "\n", path)
    return path


def load_instance(path_json: str | Path) -> Problem:
    """Re-create the problem saved by ``save_instance`` at ``path_json``."""
    path = Path(path_json)
    if not path.is_file():
        raise FileNotFoundError(f"no problem instance at {path}")
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a valid problem spec ({exc})") from exc
    return from_spec(spec, base_dir=path.parent.resolve())
