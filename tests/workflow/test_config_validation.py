"""Bad configs are rejected before any job runs, with the offending key named."""

from __future__ import annotations

import copy

import pytest
from wfhelpers import CONFIGS, REPO, smoke_config

from boexplore.workflow_config import (
    ConfigError,
    all_seeds,
    cell_seed_list,
    is_excluded,
    load_config,
    method_bo_settings,
    run_table,
    seed_chunks,
    validate_config,
)


@pytest.fixture(scope="module")
def smoke() -> dict:
    return smoke_config()


@pytest.mark.parametrize("name", CONFIGS)
def test_shipped_configs_validate(name: str) -> None:
    cfg = load_config(REPO / "config" / f"{name}.yaml")
    assert cfg["run_name"]
    assert run_table(cfg), "every shipped config runs something"


@pytest.mark.parametrize("path", sorted((REPO / "config").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_config_file_validates_and_is_listed(path) -> None:
    cfg = load_config(path)
    assert run_table(cfg)
    assert f"`{path.name}`" in (REPO / "config" / "README.md").read_text()


def test_defaults_filled(smoke: dict) -> None:
    cfg = validate_config(smoke)
    assert cfg["bo"]["warm_start"] is False
    assert cfg["resources"]["runtime_factor"] == 1.0
    assert cfg["problems"]["branin"]["instance_seed"] == 0


def test_defaults_filled_inside_referenced_sections(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["parametric"] = {}
    cfg["analysis"] = {}
    out = validate_config(cfg)
    assert out["parametric"]["enabled"] is True
    assert "thresholds" in out["analysis"]


def _rejects(cfg: dict, *fragments: str) -> str:
    with pytest.raises(ConfigError) as err:
        validate_config(cfg)
    message = str(err.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_unknown_method(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["methods"]["oops"] = "ucbb(beta=2)"
    _rejects(cfg, "methods.oops")


def test_unknown_method_parameter(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["methods"]["ucb_low"] = "ucb(betta=2)"
    _rejects(cfg, "methods.ucb_low")


def test_unknown_problem(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["problems"]["x"] = {"name": "no_such_problem", "dim": 3}
    _rejects(cfg, "problems.x.name", "no_such_problem")


def test_dim_out_of_range(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["problems"]["branin"]["dim"] = 5
    _rejects(cfg, "problems.branin.dim", "out of range")


@pytest.mark.parametrize("budget", [-3, 0])
def test_non_positive_budget(smoke: dict, budget: int) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["budget"] = budget
    _rejects(cfg, "config key budget")


def test_empty_seed_list(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["seeds"] = []
    _rejects(cfg, "config key seeds")


def test_typo_top_level_key(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["seedz"] = [1]
    _rejects(cfg, "seedz", "unknown key")


def test_typo_nested_key(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["bo"]["num_restart"] = 3
    _rejects(cfg, "bo.num_restart", "unknown key")


def test_typo_problem_key(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["problems"]["branin"]["dimm"] = 2
    _rejects(cfg, "problems.branin.dimm")


def test_n_init_larger_than_budget(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["n_init"] = 50
    _rejects(cfg, "n_init")


def test_exclude_pattern_must_match(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["exclude"] = [{"problem": "nothing*", "method": "kg"}]
    _rejects(cfg, "exclude.0")


def test_exclusion_and_run_table(smoke: dict) -> None:
    cfg = validate_config(smoke)
    runs = run_table(cfg)
    assert is_excluded(cfg, "hartmann6_d50", "kg")
    assert not any(r["problem"] == "hartmann6_d50" and r["method"] == "kg" for r in runs)
    # four (problem, method) exclusions: kg / pes / jes at d = 50, ts_raasp on branin (P1-U3)
    n_expected = len(cfg["problems"]) * len(cfg["methods"]) * len(cfg["seeds"]) - 4 * len(
        cfg["seeds"]
    )
    assert len(runs) == n_expected
    assert {r["chunk"] for r in runs} == {f"seed{s}" for s in cfg["seeds"]}


def test_seed_chunks() -> None:
    assert seed_chunks([3, 0, 1, 2, 4], 2) == [
        ("seeds0-1", [0, 1]),
        ("seeds2-3", [2, 3]),
        ("seed4", [4]),
    ]
    assert seed_chunks([5], 3) == [("seed5", [5])]


def test_pes_above_its_dimension_limit_is_rejected(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["exclude"] = [e for e in cfg["exclude"] if e["method"] != "pes"]
    _rejects(cfg, "methods.pes", "hartmann6_d50")


def test_slurm_test_config_validates() -> None:
    """The tiny config of `pytest -m slurm` must pass validation (that suite only runs in CI)."""
    cfg = load_config(REPO / "tests" / "workflow" / "data" / "slurm_tiny.yaml")
    assert run_table(cfg)


def test_per_method_settings_override_bo_for_that_method_only(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["bo"]["by_method"] = {"kg": {"num_restarts": 5, "raw_samples": 512}}
    out = validate_config(cfg)
    kg, logei = method_bo_settings(out, "kg"), method_bo_settings(out, "logei")
    assert (kg["num_restarts"], kg["raw_samples"]) == (5, 512)
    assert (logei["num_restarts"], logei["raw_samples"]) == (2, 64)
    assert kg["acq_timeout"] == logei["acq_timeout"] == 180
    assert "by_method" not in kg and "by_method" not in logei
    # without an entry the settings are bo itself (unchanged run parameters, no re-runs)
    plain = {
        k: v for k, v in validate_config(copy.deepcopy(smoke))["bo"].items() if k != "by_method"
    }
    assert method_bo_settings(out, "logei") == plain


def test_per_method_settings_reject_unknown_labels_and_keys(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["bo"]["by_method"] = {"kgg": {"num_restarts": 5}}
    _rejects(cfg, "bo.by_method.kgg", "not a label of `methods`")
    cfg["bo"]["by_method"] = {"kg": {"num_restart": 5}}
    _rejects(cfg, "num_restart")
    cfg["bo"]["by_method"] = {"kg": {"num_restarts": 0}}
    _rejects(cfg, "bo.by_method.kg.num_restarts")


def test_a_problem_runs_a_subset_of_the_seeds(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    label = next(iter(cfg["problems"]))
    cfg["problems"][label]["seeds"] = [cfg["seeds"][0]]
    rows = run_table(validate_config(cfg))
    assert {tuple(r["seeds"]) for r in rows if r["problem"] == label} == {(cfg["seeds"][0],)}
    others = {s for r in rows if r["problem"] != label for s in r["seeds"]}
    assert others == set(cfg["seeds"])
    cfg["problems"][label]["seeds"] = [max(cfg["seeds"]) + 1]
    _rejects(cfg, f"problems.{label}.seeds", "not among the global seeds")


def test_more_seeds_grow_only_the_matching_cells(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    problem, method = next(iter(cfg["problems"])), next(iter(cfg["methods"]))
    extra = [max(cfg["seeds"]) + 1, max(cfg["seeds"]) + 2]
    cfg["more_seeds"] = [{"problem": problem, "method": method, "seeds": extra, "reason": "power"}]
    valid = validate_config(cfg)
    rows = run_table(valid)
    grown = {
        s for r in rows if (r["problem"], r["method"]) == (problem, method) for s in r["seeds"]
    }
    assert grown == set(cfg["seeds"]) | set(extra)
    others = {
        s for r in rows if (r["problem"], r["method"]) != (problem, method) for s in r["seeds"]
    }
    assert others == set(cfg["seeds"])
    assert all_seeds(valid) == sorted(set(cfg["seeds"]) | set(extra))
    assert cell_seed_list(valid, problem, method) == sorted(grown)


def test_exclude_with_seeds_cuts_only_those_seeds_of_the_matching_cells(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    problem, method = next(iter(cfg["problems"])), next(iter(cfg["methods"]))
    cut = [min(cfg["seeds"])]
    rule = {"problem": problem, "method": method, "seeds": cut, "reason": "ceiling"}
    cfg["exclude"] = [*cfg.get("exclude", []), rule]
    valid = validate_config(cfg)
    rows = run_table(valid)
    kept = {s for r in rows if (r["problem"], r["method"]) == (problem, method) for s in r["seeds"]}
    assert kept == set(cfg["seeds"]) - set(cut)
    others = {
        s for r in rows if (r["problem"], r["method"]) != (problem, method) for s in r["seeds"]
    }
    assert others == set(cfg["seeds"])
    assert not is_excluded(valid, problem, method)
    # cutting every seed of a cell leaves the cell out, as a rule without seeds does
    rule["seeds"] = list(cfg["seeds"])
    valid = validate_config(cfg)
    assert is_excluded(valid, problem, method)
    assert not [r for r in run_table(valid) if (r["problem"], r["method"]) == (problem, method)]


def test_more_seeds_patterns_must_match_a_cell(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["more_seeds"] = [{"problem": "nope*", "method": "*", "seeds": [99]}]
    _rejects(cfg, "more_seeds.0", "match no configured")
    cfg["more_seeds"] = [{"problem": "*", "method": "*", "seeds": [-1]}]
    _rejects(cfg, "more_seeds")


def test_more_seeds_accept_lists_of_patterns(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    problems, methods = list(cfg["problems"])[:2], list(cfg["methods"])[:2]
    extra = [max(cfg["seeds"]) + 1]
    cfg["more_seeds"] = [{"problem": problems, "method": methods, "seeds": extra}]
    valid = validate_config(cfg)
    for p in cfg["problems"]:
        for m in cfg["methods"]:
            if is_excluded(valid, p, m):
                continue
            grown = p in problems and m in methods
            assert (extra[0] in cell_seed_list(valid, p, m)) == grown, (p, m)
    cfg["more_seeds"] = [{"problem": ["nope*"], "method": methods, "seeds": extra}]
    _rejects(cfg, "more_seeds.0", "match no configured")


def test_not_run_cells_must_match_and_name_registered_problems(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cell = {"problem": "*", "method": "*", "seeds": 5}
    cfg["not_run"] = {"ceiling_cpu_h": 1, "claims": {"P1-U3": {"cells": [cell]}}}
    validate_config(cfg)
    cfg["not_run"]["claims"]["P1-U3"]["cells"] = [{**cell, "problem": "nope"}]
    _rejects(cfg, "not_run.claims.P1-U3.cells.0", "match no configured")
    cfg["not_run"]["claims"]["P1-U3"] = {
        "cells": [cell],
        "problems": {"x": {"name": "no_such_problem", "dim": 3}},
    }
    _rejects(cfg, "not_run.claims.P1-U3.problems.x.name")
    cfg["not_run"] = {"claims": {"P1-U3": {"cells": [cell]}}, "extra": 1}
    _rejects(cfg, "not_run")
