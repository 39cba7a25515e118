"""Paper 2's config and job grid: the validated ``parametric`` section, seed chunks, grid cells,
and every job output path (torch-free: the Snakemake rules import it at parse time)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from boexplore.schema import schema_path

SCHEMA_PATH = schema_path("parametric")


def seed_chunks(n_seeds: int, chunk: int) -> list[list[int]]:
    """Seeds 0..n-1 split into consecutive chunks of at most ``chunk``."""
    if n_seeds < 1 or chunk < 1:
        raise ValueError(f"parametric: need seeds >= 1 and seed_chunk >= 1, got {n_seeds}, {chunk}")
    return [list(range(i, min(i + chunk, n_seeds))) for i in range(0, n_seeds, chunk)]


def chunk_seeds(cfg: Mapping[str, Any], n_seeds: int, chunk_id: int) -> list[int]:
    chunks = seed_chunks(n_seeds, int(cfg["seed_chunk"]))
    if not 0 <= chunk_id < len(chunks):
        raise ValueError(f"parametric: seed chunk {chunk_id} out of range 0..{len(chunks) - 1}")
    return chunks[chunk_id]


# --- cell labels (path-safe wildcards) ---------------------------------------------------------
def _num(x: float) -> str:
    return f"{x:g}".replace("-", "m")


def e2_cells(cfg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """E2 grid: one dict per (regulariser, width, init scale, lambda) with a ``label``."""
    e2 = cfg["e2"]
    cells = []
    for reg in e2["regularisers"]:
        for w in e2["widths"]:
            for s in e2["init_scales"]:
                for lam in e2["lams"]:
                    cells.append(
                        {
                            "reg": reg,
                            "width": int(w),
                            "init_scale": float(s),
                            "lam": float(lam),
                            "label": f"{reg}_w{w}_s{_num(s)}_l{_num(lam)}",
                        }
                    )
    return cells


def e3_cells(cfg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """E3 dynamic grid: one dict per (lambda, init scale) with a ``label``."""
    dyn = cfg["e3"]["dynamic"]
    return [
        {"lam": float(lam), "init_scale": float(s), "label": f"l{_num(lam)}_s{_num(s)}"}
        for lam in dyn["lams"]
        for s in dyn["init_scales"]
    ]


def _cell(cells: list[dict[str, Any]], label: str) -> dict[str, Any]:
    for c in cells:
        if c["label"] == label:
            return c
    raise ValueError(f"parametric: unknown cell {label!r}")


def _fill_defaults(node: Mapping[str, Any], instance: Any, root: Mapping[str, Any]) -> None:
    """Insert ``default`` values of ``properties`` (recursively, resolving local ``$ref``)."""
    if "$ref" in node and str(node["$ref"]).startswith("#/"):
        target: Any = root
        for part in str(node["$ref"])[2:].split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    if not isinstance(instance, dict):
        return
    for name, sub in node.get("properties", {}).items():
        if name not in instance and "default" in sub:
            instance[name] = copy.deepcopy(sub["default"])
        if name in instance:
            _fill_defaults(sub, instance[name], root)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        for name, value in instance.items():
            if name not in node.get("properties", {}):
                _fill_defaults(extra, value, root)


def resolve_config(
    section: Mapping[str, Any] | None, schema_path: str | Path | None = None
) -> dict[str, Any]:
    """The ``parametric`` section validated against its schema, with every default filled in.

    The schema is ``boexplore/schema/parametric.schema.yaml`` (package data); errors
    raise ``ValueError`` naming the offending key (``parametric.e1.seeds: ...``).
    """
    import jsonschema
    import yaml

    path = Path(schema_path) if schema_path else SCHEMA_PATH
    schema = yaml.safe_load(path.read_text())
    cfg = copy.deepcopy(dict(section or {}))
    _fill_defaults(schema, cfg, schema)
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(cfg),
        key=lambda e: list(map(str, e.path)),
    )
    if errors:
        msgs = [
            f"parametric.{'.'.join(map(str, e.path)) or '<section>'}: {e.message}" for e in errors
        ]
        raise ValueError("invalid parametric config:\n" + "\n".join(msgs))
    return cfg


def _on(cfg: Mapping[str, Any], name: str | None = None) -> bool:
    return bool(cfg["enabled"]) and (name is None or bool(cfg[name]["enabled"]))


def _chunk_ids(cfg: Mapping[str, Any], n_seeds: int) -> range:
    return range(len(seed_chunks(int(n_seeds), int(cfg["seed_chunk"]))))


def _per_problem_method_chunk(cfg: Mapping[str, Any], experiment: str, base: str) -> list[str]:
    """Run files of an experiment laid out as problems x methods x seed chunks (E1, E4)."""
    e = cfg[experiment]
    return [
        f"{base}/{experiment}/{k}/{m}/chunk{c}.parquet"
        for k in e["problems"]
        for m in e["methods"]
        for c in _chunk_ids(cfg, e["seeds"])
    ]


def job_files(cfg: Mapping[str, Any], results: str, figures: str) -> dict[str, list[str]]:
    """Every paper-2 job output and final output of a resolved config (empty when disabled).

    ``results`` / ``figures`` are the run's directories (``results/<run>``, ``figures/<run>``,
    defined once in ``workflow/rules/common.smk``). Keys: ``e1``, ``e2``, ``e3_static``,
    ``e3_dynamic``, ``e4`` (per-job run files), ``figures`` (figure names) and ``final``
    (what ``rule all`` requests).
    """
    base, tables, figs = f"{results}/parametric", f"{results}/tables", figures
    out: dict[str, list[str]] = {
        k: [] for k in ("e1", "e2", "e3_static", "e3_dynamic", "e4", "figures", "final")
    }
    if not _on(cfg):
        return out
    if _on(cfg, "e1"):
        out["e1"] = _per_problem_method_chunk(cfg, "e1", base)
        out["figures"].append("paper2_regret")
    if _on(cfg, "e2"):
        e2 = cfg["e2"]
        out["e2"] = [
            f"{base}/e2/{e2['problem']}/{r}_w{w}/chunk{c}_bounds.parquet"
            for r in e2["regularisers"]
            for w in e2["widths"]
            for c in _chunk_ids(cfg, e2["seeds"])
        ]
        out["figures"].append("paper2_coverage")
    if _on(cfg, "e3"):
        out["e3_static"] = [f"{base}/e3/static.parquet"]
        out["e3_dynamic"] = [
            f"{base}/e3/dynamic/{cell['label']}/chunk{c}.parquet"
            for cell in e3_cells(cfg)
            for c in _chunk_ids(cfg, cfg["e3"]["dynamic"]["seeds"])
        ]
        out["figures"] += ["paper2_lambda_scale_heatmaps", "paper2_exploration_vs_lambda"]
    if _on(cfg, "e4"):
        out["e4"] = _per_problem_method_chunk(cfg, "e4", base)
        out["figures"].append("paper2_lfbo_sanity")
    out["final"] = [f"{tables}/claims_paper2.csv", f"{tables}/claims_paper2.md"] + [
        f"{figs}/{name}.{ext}" for name in out["figures"] for ext in ("png", "pdf")
    ]
    return out
