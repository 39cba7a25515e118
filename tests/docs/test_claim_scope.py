"""Each claims row says where it was tested and whether its verdict still moves."""

from __future__ import annotations

import pandas as pd

from boexplore.reporting.claim_scope import ClaimScope


def _runs() -> pd.DataFrame:
    rows = []
    for problem, dim, n_evals in (("lo_a", 2, 40), ("lo_b", 5, 50), ("hi_c", 60, 120)):
        for method in ("ts", "random", "logei_effort"):
            if method == "logei_effort" and problem != "hi_c":
                continue
            for seed in range(8 if method != "ts" else 10):
                rows.append((problem, method, seed, dim, n_evals))
    return pd.DataFrame(rows, columns=["problem", "method", "seed", "dim", "n_evals"])


def _units() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "claim_id": ["P1-C4", "P1-C4", "P1-C6"],
            "variant": ["ts", "ts", None],
            "problem": ["lo_a", "hi_c", "lo_b"],
            "n_seeds": [8, 10, 8],
        }
    )


def _budget(decisions: list[str]) -> pd.DataFrame:
    prefixes = [0.25, 0.5, 0.75, 1.0]
    return pd.DataFrame(
        {
            "prefix_kind": "fraction",
            "prefix": prefixes,
            "claim_id": "P1-C4",
            "variant": "ts",
            "part": None,
            "decision": decisions,
        }
    )


def test_scope_names_the_units_problems_budgets_and_seeds() -> None:
    scope = ClaimScope(_units(), _runs(), _budget(["undecided"] * 4))
    assert scope.decided_at("P1-C4", "ts") == (
        "tested at 2 problems (d = 2–60), 40–120 evaluations, 8–10 seeds"
    )
    assert scope.decided_at("P1-C6", None) == "tested at 1 problem (d = 5), 50 evaluations, 8 seeds"


def test_a_row_without_units_takes_the_tier_or_its_method() -> None:
    scope = ClaimScope(_units(), _runs(), _budget(["undecided"] * 4))
    assert scope.decided_at("P1-C1", None).startswith("tested at 3 problems (d = 2–60)")
    assert scope.decided_at("P1-X1", "logei_effort") == (
        "tested at 1 problem (d = 60), 120 evaluations, 8–10 seeds"
    )


def test_last_move_tells_settled_from_moving() -> None:
    settled = ClaimScope(_units(), _runs(), _budget(["undecided", "x", "reproduced", "reproduced"]))
    assert settled.last_move("P1-C4", "ts").startswith("settled: reproduced at 75 % and 100 %")
    moving = ClaimScope(_units(), _runs(), _budget(["x", "x", "undecided", "not reproduced"]))
    assert moving.last_move("P1-C4", "ts") == (
        "still moving at the largest budget: undecided at 75 %, not reproduced at 100 %"
    )
    assert moving.last_move("P1-C9", None) == ""
