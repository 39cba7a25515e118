"""Claims left out under a CPU ceiling are priced by the cost model and say so in their verdict."""

from __future__ import annotations

import copy

import pandas as pd
import pytest
from wfhelpers import REPO, smoke_config

from boexplore.pipeline.not_run import (
    ClaimCost,
    claim_cost,
    cost_sentence,
    grid_end_chance,
    own_bo_cpu_h,
    with_costs,
)
from boexplore.workflow_config import (
    bo_job_cost,
    cell_seed_list,
    is_excluded,
    load_config,
    validate_config,
)


@pytest.fixture(scope="module")
def smoke() -> dict:
    cfg = smoke_config()
    cfg.pop("release", None)
    return validate_config(cfg)


def _one_cell(cfg: dict) -> tuple[str, str]:
    return next(iter(cfg["problems"])), next(iter(cfg["methods"]))


def test_only_seeds_the_tier_does_not_run_are_priced(smoke: dict) -> None:
    problem, method = _one_cell(smoke)
    have = cell_seed_list(smoke, problem, method)
    wanted = max(have) + 4  # seeds 0 .. wanted-1
    spec = {"cells": [{"problem": problem, "method": method, "seeds": wanted}]}
    cost = claim_cost(smoke, "P1-U1", spec)
    new = wanted - len(have)
    assert cost.seed_runs == new
    assert cost.cpu_h == pytest.approx(bo_job_cost(smoke, problem, method, new).cpu_s / 3600)
    # control: asking only for seeds the tier already runs costs nothing
    spec_held = {"cells": [{"problem": problem, "method": method, "seeds": have}]}
    assert claim_cost(smoke, "P1-U1", spec_held).seed_runs == 0


def test_new_problems_and_the_claims_own_exclusions(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    method = next(iter(cfg["methods"]))
    cfg["exclude"] = [*cfg.get("exclude", []), {"problem": "*", "method": method}]
    cfg = validate_config(cfg)
    spec = {
        "problems": {"extra_branin": {"name": "branin", "dim": 2, "budget": 12}},
        "cells": [{"problem": ["extra_branin"], "method": [method], "seeds": 3}],
    }
    # the tier excludes the method everywhere; the claim still needs (and prices) it
    assert claim_cost(cfg, "P1-U3", spec).seed_runs == 3
    spec_out = {**spec, "exclude": [{"problem": "extra_*", "method": "*"}]}
    assert claim_cost(cfg, "P1-U3", spec_out).seed_runs == 0


def test_own_bo_counts_every_seed_without_a_release(smoke: dict) -> None:
    total = sum(
        bo_job_cost(smoke, p, m, len(cell_seed_list(smoke, p, m))).cpu_s
        for p in smoke["problems"]
        for m in smoke["methods"]
        if not is_excluded(smoke, p, m)
    )
    assert own_bo_cpu_h(smoke) == pytest.approx(total / 3600)


def test_sentence_says_beyond_or_within_the_ceiling() -> None:
    cost = ClaimCost("P1-U3", 10, 1.5, "the other tier's ceiling")
    assert "beyond its 10 CPU-h ceiling" in cost_sentence(cost, 9.0, 10)
    assert "within its 10 CPU-h ceiling" in cost_sentence(cost, 8.0, 10)
    # no ceiling: the reason says why
    assert cost_sentence(cost, None, None).endswith("model (the other tier's ceiling)")


def test_only_undecidable_rows_of_priced_claims_get_the_price(smoke: dict) -> None:
    problem, method = _one_cell(smoke)
    cfg = {
        **smoke,
        "not_run": {
            "ceiling_cpu_h": 0.001,
            "claims": {"P1-U3": {"cells": [{"problem": problem, "method": method, "seeds": 50}]}},
        },
    }
    claims = pd.DataFrame(
        {
            "claim_id": ["P1-U3", "P1-U3", "P1-U1"],
            "verdict": [
                "undecidable at this scale: needs 50 seeds × 6 problems",
                "reproduced",
                "undecidable at this scale: needs 30 seeds × 6 problems",
            ],
        }
    )
    out = with_costs(claims, cfg)
    assert out["verdict"][0].startswith("undecidable at this scale: needs 50 seeds × 6 problems; ")
    assert "not run:" in out["verdict"][0] and "beyond its 0.001 CPU-h ceiling" in out["verdict"][0]
    assert out["verdict"][1] == "reproduced"  # decided rows keep their verdict
    assert out["verdict"][2] == claims["verdict"][2]  # a claim the section does not price
    assert with_costs(claims, smoke).equals(claims)  # no section: unchanged


def test_decide_tier_prices_p1_u3() -> None:
    cfg = load_config(REPO / "config" / "replicate-decide.yaml")
    cost = claim_cost(cfg, "P1-U3", cfg["not_run"]["claims"]["P1-U3"])
    assert cost.seed_runs > 0 and cost.cpu_h > 0


def test_problem_copies_price_added_problems_like_the_named_ones(smoke: dict) -> None:
    problem, method = _one_cell(smoke)
    have = len(cell_seed_list(smoke, problem, method))
    wanted = have + 2
    spec = {"cells": [{"problem": problem, "method": method, "seeds": wanted}]}
    one = claim_cost(smoke, "P1-U1", spec)
    three = claim_cost(smoke, "P1-U1", {**spec, "problem_copies": 3})
    # the named problem needs its new seeds; each added copy needs every seed
    assert three.seed_runs == one.seed_runs + 2 * wanted
    full = bo_job_cost(smoke, problem, method, wanted).cpu_s / 3600
    assert three.cpu_h == pytest.approx(one.cpu_h + 2 * full)
    assert (one.size(), three.size()) == (
        f"{wanted} seeds × 1 problems",
        f"{wanted} seeds × 3 problems",
    )


def test_the_chance_is_given_only_at_the_grid_s_largest_size() -> None:
    config = {"analysis": {"power": {"seeds_grid": [10, 50], "problems_grid": [6, 24]}}}
    parts = pd.DataFrame(
        {
            "claim_id": ["P1-U1", "P1-U1", "P1-U1"],
            "variant": [None, "control", "ts_raasp"],
            "part": ["gap", "random flag gap", "control ts→random gap"],
            "decision": ["undecided"] * 3,
            "need_seeds": [None, None, None],
            "p_decisive_at_need": [0.61, 0.17, 0.2],
        }
    )
    at_end = ClaimCost("P1-U1", 10, 35.6, "", seeds=50, problems=24)
    assert grid_end_chance(at_end, parts, config) == pytest.approx(0.61)  # controls are not it
    sentence = cost_sentence(at_end, 9.0, 10, 0.61)
    assert sentence.startswith("not run: 50 seeds × 24 problems (decides it with probability 0.61")
    # control: a size inside the grid, or a part that found its size, gets no chance
    assert grid_end_chance(ClaimCost("P1-U1", 10, 1.0, "", 30, 6), parts, config) is None
    found = parts.assign(need_seeds=[50, None, None])
    assert grid_end_chance(at_end, found, config) is None


def test_a_size_the_verdict_names_is_not_repeated(smoke: dict) -> None:
    problem, method = _one_cell(smoke)
    spec = {"cells": [{"problem": problem, "method": method, "seeds": 50}]}
    cfg = {**smoke, "not_run": {"ceiling_cpu_h": 1, "claims": {"P1-U1": spec}}}
    size = claim_cost(cfg, "P1-U1", spec).size()
    named = f"undecidable at this scale: needs {size}"
    other = "undecidable at this scale: needs 3 seeds × 1 problems"
    claims = pd.DataFrame({"claim_id": ["P1-U1", "P1-U1"], "verdict": [named, other]})
    out = with_costs(claims, cfg)["verdict"]
    assert out[0].startswith(f"{named}; not run: ") and out[0].count(size) == 1
    assert f"not run: {size}, " in out[1]  # a different size is stated


def test_decide_tier_prices_p1_u1_at_the_grid_s_largest_size() -> None:
    cfg = load_config(REPO / "config" / "replicate-decide.yaml")
    cost = claim_cost(cfg, "P1-U1", cfg["not_run"]["claims"]["P1-U1"])
    power = cfg["analysis"]["power"]
    assert (cost.seeds, cost.problems) == (max(power["seeds_grid"]), max(power["problems_grid"]))
