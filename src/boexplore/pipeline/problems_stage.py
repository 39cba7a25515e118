"""Stage 1: materialise a configured problem instance to ``<label>.json``."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger("boexplore.pipeline")


def generate_problem(
    entry: Mapping[str, Any], out_json: str | Path, data: Mapping[str, Any]
) -> None:
    """Create the instance described by a config entry and save its spec (+ data files)."""
    from boexplore.problems import get_problem, save_instance

    options = dict(entry.get("options") or {})
    if entry["name"] == "lasso_dna" and data.get("lasso_dna_path") and "data_path" not in options:
        options["data_path"] = str(Path(data["lasso_dna_path"]).expanduser().resolve())
    problem = get_problem(
        entry["name"],
        dim=entry.get("dim"),
        instance_seed=int(entry.get("instance_seed", 0)),
        **options,
    )
    save_instance(problem, out_json)
    log.info("wrote %s (%r)", out_json, problem)
