"""Rule, unit tests, power analysis, C8 bootstrap and mechanism activity on known answers."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from boexplore.analysis.claimkit.decide import classify_units, paired_units, summarize_part
from boexplore.analysis.claimkit.power import (
    correlation_cells_needed,
    interval_problems_needed,
    seeds_problems_needed,
    simulate_decisions,
)
from boexplore.analysis.claimkit.stats import (
    bootstrap_ci,
    hierarchical_bootstrap_ci,
    paired_t_two_sided,
)
from boexplore.analysis.claimkit.verdict import MISSING, NOT_REPRODUCED, REPRODUCED, UNDECIDED, Rule
from boexplore.analysis.performance import chance_concave_interior, curvature_bootstrap
from boexplore.analysis.variants import mechanism_activity

RULE = Rule()


def test_rule_counts():
    r = Rule(support=0.66, max_against=0.0)
    assert r.needed(3) == 2 and r.needed(6) == 4 and r.needed(9) == 6
    assert r.decide(2, 0, 3) == REPRODUCED
    assert r.decide(3, 1, 4) == NOT_REPRODUCED  # one significant reversal refutes
    assert r.decide(1, 0, 3) == UNDECIDED
    assert r.decide(0, 0, 0) == MISSING
    loose = Rule(support=0.5, max_against=0.5)
    assert loose.decide(0, 2, 4) == UNDECIDED  # 2 against allowed, 2 undecided could still support
    assert loose.decide(0, 3, 4) == NOT_REPRODUCED
    with pytest.raises(ValueError):
        Rule(support=0)


@given(st.integers(0, 20), st.integers(0, 20), st.integers(1, 20))
def test_rule_is_total_and_monotone(k_for, k_against, n):
    k_for, k_against = min(k_for, n), min(k_against, n - min(k_for, n))
    d = RULE.decide(k_for, k_against, n)
    assert d in (REPRODUCED, NOT_REPRODUCED, UNDECIDED)
    if d == REPRODUCED and k_for < n - k_against:  # one more supporting unit never hurts
        assert RULE.decide(k_for + 1, k_against, n) == REPRODUCED


def _final(effects, seeds=6, noise=0.1, seed=0):
    """Final table: method a = b + effect[problem] + noise, per seed."""
    rng = np.random.default_rng(seed)
    rows = []
    for i, eff in enumerate(effects):
        for s in range(seeds):
            base = rng.normal()
            rows.append({"problem": f"p{i}", "dim": 2, "seed": s, "method": "b", "x": base})
            rows.append(
                {
                    "problem": f"p{i}",
                    "dim": 2,
                    "seed": s,
                    "method": "a",
                    "x": base + eff + rng.normal(0, noise),
                }
            )
    return pd.DataFrame(rows)


def test_units_for_against_and_none():
    f = _final([1.0, 1.0, -1.0, 0.0])
    u = classify_units(paired_units(f, "x", [("a", "b")], "t"), RULE)
    assert list(u["outcome"]) == ["for", "for", "against", "none"]
    s = summarize_part(u, RULE, n_boot=200)
    assert (s["k_for"], s["k_against"], s["decision"]) == (2, 1, NOT_REPRODUCED)
    flipped = classify_units(paired_units(f, "x", [("a", "b")], "t", sign=-1), RULE)
    assert list(flipped["outcome"]) == ["against", "against", "for", "none"]
    assert paired_units(f, "x", [("a", "zzz")], "t").empty


def test_holm_makes_marginal_units_insignificant():
    # p ~ 0.02 on each of 5 problems: significant alone, not after Holm over 5
    f = _final([0.13] * 5, seeds=8, noise=0.12, seed=3)
    u = paired_units(f, "x", [("a", "b")], "t")
    raw = (u["p"] < 0.05).sum()
    adj = (classify_units(u, RULE)["outcome"] == "for").sum()
    assert adj <= raw


def test_paired_t_two_sided_matches_scipy():
    d = np.array([0.3, -0.1, 0.5, 0.2, 0.4])
    p, m = paired_t_two_sided(d)
    assert p == pytest.approx(stats.ttest_1samp(d, 0).pvalue) and m == pytest.approx(d.mean())
    assert paired_t_two_sided(np.array([1.0, 1.0]))[0] == 0.0
    assert paired_t_two_sided(np.zeros(3))[0] == 1.0
    assert paired_t_two_sided(np.array([1.0]))[0] == 1.0


def test_bootstrap_signature_is_keyword_only_and_hierarchical_is_wider():
    x = np.random.default_rng(0).normal(size=30)
    with pytest.raises(TypeError):
        bootstrap_ci(x, np.mean, 0.9, 100)  # the swapped-argument call cannot happen
    est, lo, hi = bootstrap_ci(x, np.mean, n_boot=300, level=0.9)
    assert lo <= est <= hi
    rng = np.random.default_rng(1)
    groups = [rng.normal(mu, 0.1, 5) for mu in (0.0, 1.0, 2.0, 3.0)]
    e, lo_h, hi_h = hierarchical_bootstrap_ci(groups, n_boot=500)
    _, lo_s, hi_s = bootstrap_ci(np.concatenate(groups), np.mean, n_boot=500)
    assert lo_h <= e <= hi_h and e == pytest.approx(1.5, abs=0.1)
    assert hi_h - lo_h > hi_s - lo_s  # problems vary: the hierarchical interval is wider
    assert np.isnan(hierarchical_bootstrap_ci([np.array([np.nan])])[0])


def _units(effects, n_seeds=3, per_problem=1, kind="t"):
    return pd.DataFrame(
        [
            {"problem": f"p{i}", "effect": e, "kind": kind, "n_seeds": n_seeds}
            for i, e in enumerate(effects)
            for _ in range(per_problem)
        ]
    )


def test_simulation_matches_analytic_t_power():
    # one unit, d_z = 1, 8 seeds: P(two-sided t-test significant, right sign) = nct power
    pr, pn = simulate_decisions(_units([1.0]), Rule(support=1.0), 8, 1, n_sim=4000, seed=1)
    df, nc = 7, 1.0 * np.sqrt(8)
    crit = stats.t.ppf(0.975, df)
    exact = stats.nct.sf(crit, df, nc)
    assert pr == pytest.approx(exact, abs=0.03)
    assert pn == pytest.approx(stats.nct.cdf(-crit, df, nc), abs=0.01)


def test_power_needs_known_both_ways():
    big = seeds_problems_needed(_units([8.0, 8.0, 8.0]), RULE, [3, 5, 10], [3, 6], n_sim=200)
    assert big.seeds == 3 and big.problems == 3 and big.p_decisive >= 0.8
    medium = seeds_problems_needed(
        _units([0.8, 0.8, 0.8]), RULE, [3, 5, 10, 20, 30], [3, 6], n_sim=200
    )
    assert medium.seeds is not None and medium.seeds > 3 and medium.p_reproduced > 0.7
    smaller = seeds_problems_needed(_units([0.5] * 3), RULE, [3, 5, 10, 20, 30], [3, 6], n_sim=200)
    assert (
        smaller.seeds is None or smaller.seeds * smaller.problems >= medium.seeds * medium.problems
    )
    null = seeds_problems_needed(_units([0.0, 0.0, 0.0]), RULE, [3, 10, 50], [3, 12], n_sim=200)
    assert null.seeds is None and "not decided" in null.text()
    # a real reversal on one problem is found as "not reproduced"
    rev = seeds_problems_needed(_units([1.0, 1.0, -1.0]), RULE, [3, 5, 10, 20], [3], n_sim=200)
    assert rev.seeds is not None and rev.p_not_reproduced > rev.p_reproduced


def test_closed_form_needs():
    assert correlation_cells_needed(0.8, 0.5) < correlation_cells_needed(0.6, 0.5)
    assert correlation_cells_needed(0.5, 0.5) is None
    assert interval_problems_needed(0.8, 0.4, 1.0, 0.5, 5) > 5
    assert interval_problems_needed(0.8, 0.79, 0.81, 0.5, 5) == 5
    assert interval_problems_needed(np.nan, 0.4, 1.0, 0.5, 5) is None


def _perf_final(peak, n_methods=7, seeds=6, noise=0.02, problems=3, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(problems):
        for j in range(n_methods):
            lv = j / (n_methods - 1)
            for s in range(seeds):
                rows.append(
                    {
                        "problem": f"p{p}",
                        "dim": 2,
                        "method": f"m{j}",
                        "seed": s,
                        "otsd_norm": lv + rng.normal(0, noise),
                        "performance": -((lv - peak) ** 2) + rng.normal(0, noise),
                    }
                )
    return pd.DataFrame(rows)


def test_curvature_bootstrap_known_both_ways():
    inv_u = curvature_bootstrap(_perf_final(0.5), n_boot=400)
    assert (inv_u["curv_high"] < 0).all() and inv_u["interior"].all()
    u = classify_units(inv_u.assign(kind="z"), RULE)
    assert (u["outcome"] == "for").all()
    mono = curvature_bootstrap(_perf_final(2.0), n_boot=400)
    assert not mono["interior"].any()
    assert (classify_units(mono.assign(kind="z"), RULE)["outcome"] == "against").all()
    edge = curvature_bootstrap(_perf_final(0.95), n_boot=400)  # concave but best at the edge
    assert not edge["interior"].all()


def test_chance_level_of_interior_vertex():
    c5, c9 = chance_concave_interior(5, 3000), chance_concave_interior(9, 3000)
    assert 0.1 < c5 < 0.6 and 0.1 < c9 < 0.6
    assert np.isnan(chance_concave_interior(2))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=6))
def test_mechanism_activity(lengths):
    tr = pd.DataFrame(
        {
            "problem": "p",
            "method": "m",
            "seed": 0,
            "dim": 4,
            "tr_length": lengths,
            "raasp_n_perturbed": [4.0] * len(lengths),
        }
    )
    a = mechanism_activity(tr).iloc[0]
    assert a["tr_acted"] == float(len(set(np.round(lengths, 12))) > 1)
    assert a["raasp_acted"] == 0.0  # every coordinate replaced: a no-op
    tr["raasp_n_perturbed"] = 2.0
    assert mechanism_activity(tr).iloc[0]["raasp_acted"] == 1.0
    bare = mechanism_activity(tr[["problem", "method", "seed"]]).iloc[0]
    assert np.isnan(bare["tr_acted"]) and np.isnan(bare["raasp_acted"])
