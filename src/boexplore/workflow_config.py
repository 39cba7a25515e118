"""Validate a workflow config before any job runs.

Two layers: the JSON Schema shipped in ``boexplore.schema`` (types, ranges, unknown keys,
defaults filled in) and semantic checks the schema cannot express (the problem
is registered, the dimension is allowed for it, the method spec parses).
Every error names the offending key, e.g. ``methods.ucb_hi``. Config files are read with
a duplicate-key check (``read_yaml``): YAML silently keeps the last of two equal keys, so a
repeated problem or method label would vanish without it.
"""

from __future__ import annotations

import copy
import fnmatch
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from boexplore.bo.design import default_n_init, initial_design_problem
from boexplore.cost.calibration import EXPENSIVE_METHODS, JobCost, config_calibration
from boexplore.cost.cpu import bo_job_estimate
from boexplore.cost.requests import max_runtime_min, resources
from boexplore.schema import schema_dir

SCHEMA_DIR = schema_dir()


class ConfigError(ValueError):
    """A config problem; the message names the key and says what is wrong."""


def _key_path(parts: Any) -> str:
    path = ".".join(str(p) for p in parts)
    return path or "<top level>"


def _load_schema_resources(schema_dir: Path):
    """Registry of every schema file in ``schema_dir`` so relative ``$ref`` resolves."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    resources = []
    for file in sorted(schema_dir.glob("*.schema.yaml")):
        content = yaml.safe_load(file.read_text()) or {}
        # A `$schema` key would make jsonschema switch to the stock validator class for
        # that subschema, which does not fill in defaults; the dialect is fixed here instead.
        content.pop("$schema", None)
        resources.append((file.name, Resource(contents=content, specification=DRAFT202012)))
    return Registry().with_resources(resources)


def _validator_with_defaults(schema: dict, registry):
    """A Draft 2020-12 validator that also fills in ``default`` values."""
    from jsonschema import Draft202012Validator, validators

    base_properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema_node):
        if isinstance(instance, dict):
            for name, sub in properties.items():
                if isinstance(sub, dict) and "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
                elif isinstance(sub, dict) and "$ref" in sub and name not in instance:
                    resolved = validator._resolver.lookup(sub["$ref"]).contents
                    if "default" in resolved:
                        instance[name] = copy.deepcopy(resolved["default"])
        yield from base_properties(validator, properties, instance, schema_node)

    cls = validators.extend(Draft202012Validator, {"properties": set_defaults})
    return cls(schema, registry=registry)


def validate_schema(config: dict, schema_dir: str | Path = SCHEMA_DIR) -> dict:
    """Check ``config`` against the JSON Schema; return a copy with defaults filled."""
    config = copy.deepcopy(config)
    schema_dir = Path(schema_dir)
    schema_file = schema_dir / "config.schema.yaml"
    schema = yaml.safe_load(schema_file.read_text())
    registry = _load_schema_resources(schema_dir)
    validator = _validator_with_defaults(schema, registry)
    # Defaults are inserted before the validator descends, so one pass fills nested ones too.
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        raise ConfigError("\n".join(_describe(e) for e in errors))
    return config


def _describe(error) -> str:
    """Turn a jsonschema error into a message that names the key."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        keys = ", ".join(_key_path([*path, k]) for k in extra)
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        return f"config key {keys}: unknown key (typo?); allowed here: {allowed}"
    return f"config key {_key_path(path)}: {error.message}"


def _semantic_errors(config: Mapping[str, Any]) -> Iterator[str]:
    """Checks that need the package: problems exist, dims allowed, specs parse."""
    from boexplore.problems import problem_info

    for label, entry in config["problems"].items():
        extra = sorted(set(entry.get("seeds") or []) - set(config["seeds"]))
        if extra:
            yield (
                f"config key problems.{label}.seeds: {extra} are not among the global seeds "
                f"{list(config['seeds'])} (a problem runs a subset of them)"
            )
        try:
            info = problem_info(entry["name"])
        except KeyError as exc:
            yield f"config key problems.{label}.name: {exc.args[0]}"
            continue
        dim = entry.get("dim") or info.default_dim
        if dim is None:
            yield f"config key problems.{label}.dim: problem {info.name!r} needs a dim ({info.dims})"
        elif dim < info.min_dim or (info.max_dim is not None and dim > info.max_dim):
            yield (
                f"config key problems.{label}.dim: {dim} is out of range for "
                f"{info.name!r} (allowed: {info.dims})"
            )
        if dim is not None:
            budget = entry.get("budget") or config["budget"]
            n_init = entry.get("n_init") or config.get("n_init")
            if n_init is None:
                n_init = default_n_init(int(dim), int(budget))
            allow = bool(config.get("allow_large_init", False))
            reason = initial_design_problem(int(n_init), int(budget), allow)
            if reason is not None:
                yield f"config key problems.{label}: {reason}"
    try:
        from boexplore.bo import parse_method
    except ImportError:  # BO engine not installed: only syntax-free checks possible
        parse_method = None
    if parse_method is not None:
        parsed = {}
        for label, spec in config["methods"].items():
            try:
                parsed[label] = parse_method(spec)
            except ValueError as exc:
                yield f"config key methods.{label}: {exc}"
        yield from _method_dim_errors(config, parsed)
        yield from _model_setting_errors(config, parsed)
    for label in (config.get("bo", {}) or {}).get("by_method", {}) or {}:
        if label not in config["methods"]:
            yield (
                f"config key bo.by_method.{label}: not a label of `methods` "
                f"(known: {', '.join(config['methods'])})"
            )
    if "device" in ((config.get("bo") or {}).get("extra") or {}):
        yield (
            "config key bo.extra.device: set the device with bo.device or "
            "bo.by_method.<label>.device (the SLURM GPU request and the cost model read those; "
            "bo.extra is passed to run_bo unread)"
        )
    for i, rule in enumerate(config.get("exclude", [])):
        if not fnmatch.filter(config["problems"], rule["problem"]) or not fnmatch.filter(
            config["methods"], rule["method"]
        ):
            yield f"config key exclude.{i}: pattern matches no configured problem/method"
    for i, entry in enumerate(config.get("more_seeds") or []):
        cells = [
            (p, m)
            for p in config["problems"]
            for m in config["methods"]
            if cell_matches(entry, p, m) and not is_excluded(config, p, m)
        ]
        if not cells:
            yield f"config key more_seeds.{i}: patterns match no configured (problem, method) cell"
    yield from _not_run_errors(config)
    yield from _analysis_errors(config)
    yield from _parametric_errors(config)
    yield from _combinatorial_errors(config)


def _combinatorial_errors(config: Mapping[str, Any]) -> Iterator[str]:
    """``combinatorial``: registered combinatorial problems, readable method specs, a design
    that fits the budget."""
    comb = config.get("combinatorial") or {}
    if not comb.get("enabled", False):
        return
    from boexplore.discrete.methods import parse_discrete_method
    from boexplore.problems import problem_info

    key = "config key combinatorial"
    for label, entry in (comb.get("problems") or {}).items():
        try:
            info = problem_info(entry["name"])
        except KeyError as exc:
            yield f"{key}.problems.{label}.name: {exc.args[0]}"
            continue
        if info.kind != "combinatorial":
            yield f"{key}.problems.{label}.name: {entry['name']!r} is a {info.kind} problem"
    for label, spec in (comb.get("methods") or {}).items():
        try:
            parse_discrete_method(spec)
        except ValueError as exc:
            yield f"{key}.methods.{label}: {exc}"
    if comb.get("n_init", 10) > comb.get("budget", 100):
        yield f"{key}.n_init: {comb['n_init']} is more than the budget {comb['budget']}"


def _not_run_errors(config: Mapping[str, Any]) -> Iterator[str]:
    """``not_run``: its problems are registered and each cell pattern prices some cell (a
    typo would otherwise price a claim at zero)."""
    from boexplore.problems import problem_info

    for claim, spec in ((config.get("not_run") or {}).get("claims") or {}).items():
        key = f"config key not_run.claims.{claim}"
        for label, entry in (spec.get("problems") or {}).items():
            try:
                problem_info(entry["name"])
            except KeyError as exc:
                yield f"{key}.problems.{label}.name: {exc.args[0]}"
        problems = [*config["problems"], *(spec.get("problems") or {})]
        for i, cell in enumerate(spec["cells"]):
            if not any(cell_matches(cell, p, m) for p in problems for m in config["methods"]):
                yield f"{key}.cells.{i}: patterns match no configured (problem, method)"


def _analysis_errors(config: Mapping[str, Any]) -> Iterator[str]:
    """Paper-1 analysis cross-references: every group named by the order/claims exists."""
    analysis = config.get("analysis") or {}
    groups = analysis.get("groups") or {}
    refs: list[tuple[str, str]] = [
        (f"analysis.paper_order.{i}", g)
        for i, level in enumerate(analysis.get("paper_order") or [])
        for g in level
    ]
    for key in ("explorers", "exploiters", "c4_ts_groups", "c5_ucb_groups"):
        refs += [(f"analysis.{key}", g) for g in analysis.get(key) or []]
    for key, group in refs:
        if group not in groups:
            yield (
                f"config key {key}: group {group!r} is not defined in analysis.groups "
                f"(defined: {', '.join(groups) or 'none'})"
            )
    seen: dict[str, str] = {}
    for group, labels in groups.items():
        for label in labels:
            if label in seen and seen[label] != group:
                yield (
                    f"config key analysis.groups.{group}: method label {label!r} is already "
                    f"in group {seen[label]!r} (a method belongs to one paper group)"
                )
            seen.setdefault(label, group)


def _parametric_errors(config: Mapping[str, Any]) -> Iterator[str]:
    """Paper-2 cross-references: experiments name configured problems, claims run methods."""
    par = config.get("parametric") or {}
    if not par.get("enabled", True):
        return
    problems = set(par.get("problems") or {})
    e1 = par.get("e1") or {}
    e1_on = e1.get("enabled", True)
    for i, name in enumerate(e1.get("problems") or [] if e1_on else []):
        if name not in problems:
            yield f"config key parametric.e1.problems.{i}: {name!r} is not a key of parametric.problems"
    e3 = par.get("e3") or {}
    if e3.get("enabled", True) and e3.get("problem") is not None and e3["problem"] not in problems:
        yield f"config key parametric.e3.problem: {e3['problem']!r} is not a key of parametric.problems"
    for exp in ("e1", "e2"):
        section = par.get(exp) or {}
        methods = set(section.get("methods") or [])
        for name in section.get("policy_overrides") or {}:
            if name not in methods:
                yield (
                    f"config key parametric.{exp}.policy_overrides.{name}: not one of "
                    f"parametric.{exp}.methods ({', '.join(sorted(methods))})"
                )
    claims = par.get("claims") or {}
    e1_methods = set(e1.get("methods") or [])
    if e1_on and claims.get("policy") is not None and claims["policy"] not in e1_methods:
        yield (
            f"config key parametric.claims.policy: {claims['policy']!r} is not run by "
            f"parametric.e1.methods ({', '.join(sorted(e1_methods))})"
        )
    known = set(_parametric_method_names())
    for i, name in enumerate(claims.get("ablations") or []):
        if name not in known:
            yield f"config key parametric.claims.ablations.{i}: {name!r} is not a paper-2 method"
    e1_problems = set(e1.get("problems") or [])
    for i, name in enumerate(claims.get("problems") or [] if e1_on else []):
        if name not in e1_problems:
            yield f"config key parametric.claims.problems.{i}: {name!r} is not in parametric.e1.problems"


def _parametric_method_names() -> list[str]:
    """The paper-2 method names (the schema's enum: one home)."""
    from boexplore.schema import load_schema

    return list(load_schema("parametric")["$defs"]["method"]["enum"])


def _pes_max_dim_default() -> int:
    """``BOSettings.pes_max_dim`` (PES is optimised by finite differences): one home, bo.settings."""
    from dataclasses import fields

    from boexplore.bo.settings import BOSettings

    return int(next(f.default for f in fields(BOSettings) if f.name == "pes_max_dim"))


def _method_dim_errors(config: Mapping[str, Any], parsed: Mapping[str, Any]) -> Iterator[str]:
    """Methods that refuse a problem's dimension (PES above pes_max_dim) unless excluded."""
    from boexplore.problems import problem_info

    limit = int(config.get("bo", {}).get("extra", {}).get("pes_max_dim", _pes_max_dim_default()))
    for label, spec in parsed.items():
        if spec.base != "pes":
            continue
        for problem, entry in config["problems"].items():
            try:
                dim = entry.get("dim") or problem_info(entry["name"]).default_dim
            except KeyError:
                continue
            if dim and dim > limit and not is_excluded(config, problem, label):
                yield (
                    f"config key methods.{label}: pes is limited to d <= {limit} but problem "
                    f"{problem!r} has d = {dim}; add an exclude rule or raise bo.extra.pes_max_dim"
                )


#: BO settings that describe the GP (``bo/model.py``, ``bo/gp_spec.py``): they make no sense for
#: a method that fits none.
MODEL_SETTINGS: tuple[str, ...] = (
    "gp_prior",
    "gp_fit",
    "gp_kernel",
    "gp_lengthscale",
    "gp_noise",
    "gp_outputscale",
)


def _model_setting_errors(config: Mapping[str, Any], parsed: Mapping[str, Any]) -> Iterator[str]:
    """A model setting given to a model-free method (random, sobol), by name: in its
    ``bo.by_method`` entry, or in ``bo`` / ``bo.extra`` (which every method's runs get)."""
    free = [label for label, spec in parsed.items() if not spec.model_based]
    if not free:
        return
    bo = config.get("bo") or {}
    for label in free:
        for key in MODEL_SETTINGS:
            if key in ((bo.get("by_method") or {}).get(label) or {}):
                yield (
                    f"config key bo.by_method.{label}.{key}: methods.{label} "
                    f"({config['methods'][label]}) fits no model, so a model setting makes no "
                    "sense for it"
                )
    for where, table in (("bo", bo), ("bo.extra", bo.get("extra") or {})):
        for key in MODEL_SETTINGS:
            if key in table:
                names = ", ".join(f"methods.{m}" for m in free)
                yield (
                    f"config key {where}.{key}: every method's runs get it, but {names} fit "
                    f"no model; set it per model-based method with bo.by_method.<label>.{key}"
                )


def validate_config(config: Mapping[str, Any], schema_dir: str | Path = SCHEMA_DIR) -> dict:
    """Full validation; raises ``ConfigError`` listing every problem found."""
    checked = validate_schema(dict(config), schema_dir)
    errors = list(_semantic_errors(checked))
    if errors:
        raise ConfigError("\n".join(errors))
    return checked


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a mapping with the same key twice (names file, line, key)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise ConfigError(
                    f"{key_node.start_mark.name}: line {line}: duplicate key {key!r} "
                    f"(first at line {seen[key]}); YAML would silently keep only the last"
                )
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: str | Path) -> Any:
    """Parse a YAML file like ``yaml.safe_load`` but fail on duplicate keys (``ConfigError``)."""
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        try:
            return yaml.load(fh, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML ({exc})") from None


def load_config(path: str | Path, schema_dir: Path = SCHEMA_DIR) -> dict:
    """Read a YAML config file (duplicate keys refused) and validate it."""
    data = read_yaml(path) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping")
    return validate_config(data, schema_dir)


def _matching_exclusions(
    config: Mapping[str, Any], problem: str, method: str
) -> list[Mapping[str, Any]]:
    """The ``exclude`` rules whose patterns match (problem, method)."""
    return [
        r
        for r in config.get("exclude", [])
        if fnmatch.fnmatch(problem, r["problem"]) and fnmatch.fnmatch(method, r["method"])
    ]


def is_excluded(config: Mapping[str, Any], problem: str, method: str) -> bool:
    """True when (problem, method) matches an ``exclude`` rule that names no seeds (the whole
    cell is left out), or when its seed-cutting rules leave it no seed."""
    rules = _matching_exclusions(config, problem, method)
    if any(not r.get("seeds") for r in rules):
        return True
    return bool(rules) and not cell_seed_list(config, problem, method)


def method_bo_settings(config: Mapping[str, Any], method: str) -> dict[str, Any]:
    """The ``bo`` settings of one method's runs: ``bo`` with ``bo.by_method[method]`` on top.

    Without a ``by_method`` entry this is ``bo`` itself (minus the ``by_method`` table), so
    adding an entry for one method leaves every other method's run parameters unchanged.
    """
    bo = dict(config.get("bo", {}) or {})
    by_method = bo.pop("by_method", None) or {}
    return {**bo, **dict(by_method.get(method, {}) or {})}


def problem_design(config: Mapping[str, Any], label: str) -> tuple[int, int, int]:
    """(dim, budget, n_init) of problem instance ``label``, defaults resolved once.

    ``n_init`` falls back to the config's global ``n_init`` and then to the d-aware
    default of ``boexplore.bo.design.default_n_init``.
    """
    from boexplore.problems import problem_info

    entry = config["problems"][label]
    dim = entry.get("dim") or problem_info(entry["name"]).default_dim
    budget = int(entry.get("budget") or config["budget"])
    n_init = entry.get("n_init") or config.get("n_init")
    if n_init is None:
        n_init = default_n_init(int(dim), budget)
    return int(dim), budget, int(n_init)


def seed_chunks(seeds: list[int], per_job: int) -> list[tuple[str, list[int]]]:
    """Split the sorted seeds into jobs; label ``seed<k>`` for one seed, ``seeds<a>-<b>`` else."""
    ordered = sorted(int(s) for s in seeds)
    chunks = []
    for start in range(0, len(ordered), per_job):
        part = ordered[start : start + per_job]
        label = f"seed{part[0]}" if len(part) == 1 else f"seeds{part[0]}-{part[-1]}"
        chunks.append((label, part))
    return chunks


def parse_chunk_label(label: str, seeds: Sequence[int]) -> list[int]:
    """Seeds of a chunk label (``seed<k>``, ``seeds<a>-<b>``) among ``seeds``; [] if none."""
    import re

    one = re.fullmatch(r"seed(\d+)", label)
    if one:
        return [int(one[1])] if int(one[1]) in {int(s) for s in seeds} else []
    span = re.fullmatch(r"seeds(\d+)-(\d+)", label)
    if span is None:
        return []
    return sorted(int(s) for s in seeds if int(span[1]) <= int(s) <= int(span[2]))


def problem_seed_list(config: Mapping[str, Any], label: str) -> list[int]:
    """Seeds of problem instance ``label``: its own ``seeds`` (a subset of the global seeds,
    e.g. fewer where runs are expensive), else the global ``seeds``."""
    own = (config["problems"][label] or {}).get("seeds")
    if not own:
        return list(config["seeds"])
    extra = sorted(set(own) - set(config["seeds"]))
    if extra:
        raise ValueError(
            f"problem {label!r}: seeds {extra} are not among the global seeds {config['seeds']}"
        )
    return sorted(int(s) for s in own)


def label_patterns(value: str | Sequence[str]) -> list[str]:
    """fnmatch patterns of a ``more_seeds`` / ``not_run`` entry: one, or a list."""
    return [value] if isinstance(value, str) else list(value)


def cell_matches(entry: Mapping[str, Any], problem: str, method: str) -> bool:
    """Whether an entry's problem and method patterns (one or a list each) match the cell."""
    return any(fnmatch.fnmatch(problem, p) for p in label_patterns(entry["problem"])) and any(
        fnmatch.fnmatch(method, m) for m in label_patterns(entry["method"])
    )


def cell_seed_list(config: Mapping[str, Any], problem: str, method: str) -> list[int]:
    """Seeds of one (problem, method) cell: the problem's seeds plus those of every
    ``more_seeds`` entry whose patterns match the cell (cells a power analysis sized up),
    minus those of every ``exclude`` rule with ``seeds`` that matches it (cells cut)."""
    seeds = set(problem_seed_list(config, problem))
    for entry in config.get("more_seeds") or []:
        if cell_matches(entry, problem, method):
            seeds.update(int(s) for s in entry["seeds"])
    for rule in _matching_exclusions(config, problem, method):
        seeds.difference_update(int(s) for s in rule.get("seeds") or [])
    return sorted(seeds)


def all_seeds(config: Mapping[str, Any]) -> list[int]:
    """Every seed any cell of ``config`` runs: the global seeds and those of ``more_seeds``."""
    seeds = {int(s) for s in config["seeds"]}
    for entry in config.get("more_seeds") or []:
        seeds.update(int(s) for s in entry["seeds"])
    return sorted(seeds)


def bo_job_cost(
    config: Mapping[str, Any],
    problem: str,
    method: str,
    n_seeds: int,
    cal: Mapping[str, Any] | None = None,
    start: int = 0,
) -> JobCost:
    """Cost of one ``bo_run`` job running ``n_seeds`` seeds of (problem, method), by the cost
    model; ``start``: evaluations per seed it continues from (a released trace it extends)."""

    cal = cal or config_calibration(config)
    d, budget, n_init = problem_design(config, problem)
    name = config["problems"][problem]["name"]
    bo = method_bo_settings(config, method)
    spec = config["methods"][method]
    cpu, mem = bo_job_estimate(spec, name, d, budget, n_init, bo, cal, n_seeds, start)
    return JobCost("bo_run", f"{problem}/{method}", cpu, mem)


def chunk_size(config: Mapping[str, Any], problem: str, method: str) -> int:
    """Seeds per BO job for (problem, method).

    One seed per job for the expensive acquisition functions and for d at or above
    ``resources.single_seed_min_dim``; otherwise ``seeds_per_job``, reduced until the
    predicted job fits in half the partition limit (so a job rarely needs a resubmission).
    """
    from boexplore.bo.methods import parse_method

    per_job = int(config.get("seeds_per_job", 1))
    if per_job <= 1:
        return 1
    res = resources(config)
    base = parse_method(config["methods"][method]).base
    d = problem_design(config, problem)[0]
    if base in res.get("expensive_methods", EXPENSIVE_METHODS):
        return 1
    if d >= int(res.get("single_seed_min_dim", 50)):
        return 1
    cal = config_calibration(config)
    one = bo_job_cost(config, problem, method, 1, cal).cpu_s
    start = cal["bo"]["startup_s"]
    limit_s = 0.5 * max_runtime_min(config) * 60.0 / float(res.get("runtime_factor", 1.0))
    fit = int((limit_s - start) // max(one - start, 1e-9))
    return max(1, min(per_job, fit))


def run_table(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every BO job the config asks for: (problem, method, seed chunk) with its budget.

    A job runs up to ``seeds_per_job`` seeds one after the other (1 by default); on a
    cluster larger chunks keep the DAG small. The cost model gives expensive methods and
    high dimensions one seed per job (``chunk_size``).
    """
    rows = []
    for problem in config["problems"]:
        _, budget, n_init = problem_design(config, problem)
        for method in config["methods"]:
            if is_excluded(config, problem, method):
                continue
            cell_seeds = cell_seed_list(config, problem, method)
            for label, seeds in seed_chunks(cell_seeds, chunk_size(config, problem, method)):
                rows.append(
                    {
                        "problem": problem,
                        "method": method,
                        "chunk": label,
                        "seeds": seeds,
                        "budget": int(budget),
                        "n_init": int(n_init),
                    }
                )
    return rows


def numerics_profile(config: Mapping[str, Any]) -> str:
    """The numerics profile every job of ``config`` runs under (``numerics.profile``)."""
    from boexplore.numerics import DEFAULT_PROFILE

    return str((config.get("numerics") or {}).get("profile") or DEFAULT_PROFILE)
