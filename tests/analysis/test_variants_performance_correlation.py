import numpy as np
import pandas as pd
import pytest
from synthetic import synthetic_metrics

from boexplore.analysis.correlation import otsd_oe_correlation, per_problem_correlation
from boexplore.analysis.performance import nonmonotone_test, per_problem_shape
from boexplore.analysis.summaries import (
    cell_medians,
    final_rows,
    performance_score,
    ranks_within_problem,
    summarize_final,
    trajectory_summary,
)
from boexplore.analysis.variants import (
    effect_summary,
    match_variants,
    paired_differences,
    spec_core,
)


def _meta(rows):
    return pd.DataFrame(
        rows, columns=["method", "method_spec", "base_method", "q", "trust_region", "raasp"]
    )


def test_spec_core():
    assert spec_core("ucb(beta=4) + q4+tr") == "ucb(beta=4)"


def test_match_variants_requires_same_params_and_other_factors():
    meta = _meta(
        [
            ["ucb", "ucb(beta=4)", "ucb", 1, False, False],
            ["ucb_q4", "ucb(beta=4)+q4", "ucb", 4, False, False],
            ["ucb16_q4", "ucb(beta=16)+q4", "ucb", 4, False, False],
            ["ucb_tr", "ucb(beta=4)+tr", "ucb", 1, True, False],
            ["ucb_q4_tr", "ucb(beta=4)+q4+tr", "ucb", 4, True, False],
            ["ei_raasp", "logei+raasp", "logei", 1, False, True],
        ]
    )
    got = {tuple(r) for r in match_variants(meta)[["factor", "variant", "base"]].to_numpy()}
    assert got == {
        ("q", "ucb_q4", "ucb"),
        ("q", "ucb_q4_tr", "ucb_tr"),
        ("trust_region", "ucb_tr", "ucb"),
        ("trust_region", "ucb_q4_tr", "ucb_q4"),
    }


def test_variant_effects_sign():
    m = synthetic_metrics(
        levels={"ei": 0.5},
        seeds=4,
        variants={"ei_q4": ("ei", 4, False, False, 0.2), "ei_tr": ("ei", 1, True, False, -0.3)},
    )
    final = final_rows(m)
    final["oe_rel"] = final["oe_kl"]
    pairs = match_variants(final)
    diffs = paired_differences(final, pairs)
    s = effect_summary(diffs).set_index(["factor", "metric"])
    assert s.loc[("q", "otsd_norm"), "frac_positive"] == 1.0
    assert s.loc[("trust_region", "oe_rel"), "frac_positive"] == 0.0
    assert s.loc[("q", "otsd_norm"), "n"] == 3 * 4


def test_summaries_and_ranks():
    m = synthetic_metrics(levels={"a": 0.9, "b": 0.1}, seeds=4, T=8)
    final = final_rows(m)
    assert (final["n"] == 8).all() and len(final) == 3 * 2 * 4
    s = ranks_within_problem(summarize_final(final, "otsd_norm", n_boot=50))
    assert (s.loc[s.method == "a", "rank"] == 1).all()
    assert (s["ci_low"] <= s["median"]).all() and (s["median"] <= s["ci_high"]).all()
    tr = trajectory_summary(m, "otsd_norm", n_boot=20)
    assert len(tr) == 3 * 2 * 8 and (tr["ci_low"] <= tr["ci_high"] + 1e-12).all()
    with pytest.raises(ValueError, match="missing columns"):
        final_rows(m.drop(columns="n"))


def test_performance_score_uses_regret_only_when_complete():
    f = pd.DataFrame(
        {
            "problem": ["a", "a", "b", "b"],
            "best_so_far": [1.0, 2.0, 3.0, 4.0],
            "regret": [0.5, 0.1, np.nan, 1.0],
        }
    )
    np.testing.assert_allclose(performance_score(f), [-0.5, -0.1, 3.0, 4.0])


def test_inverted_u_detected_and_monotone_not():
    levels = {f"m{i}": v for i, v in enumerate(np.linspace(0, 1, 7))}
    final = final_rows(synthetic_metrics(levels=levels, seeds=3))
    final["performance"] = performance_score(final)
    cells = cell_medians(final, ["otsd_norm", "performance"])
    shape = per_problem_shape(cells)
    assert (shape["curvature"] < 0).all() and shape["best_interior"].all()
    mono = cells.assign(performance=cells["otsd_norm"])
    t = nonmonotone_test(per_problem_shape(mono))
    assert t["frac_negative_curvature"] == 0.0 and t["interior_rate"] == 0.0
    assert nonmonotone_test(per_problem_shape(cells.head(2)))["n_problems"] == 0


def test_correlation_known_answers():
    rng = np.random.default_rng(0)
    x = rng.random(30)
    cells = pd.DataFrame(
        {
            "problem": np.repeat(["p", "q"], 15),
            "dim": 2,
            "method": [f"m{i}" for i in range(30)],
            "otsd_norm": x,
            "oe_rel": 3 * x + 1,
        }
    )
    c = otsd_oe_correlation(cells, n_boot=100)
    assert c["rho"] == pytest.approx(1.0) and c["n_cells"] == 30
    assert (per_problem_correlation(cells)["rho"] > 0.99).all()
    anti = otsd_oe_correlation(cells.assign(oe_rel=-x), n_boot=100)
    assert anti["rho"] == pytest.approx(-1.0) and anti["ci_high"] < 0
    assert np.isnan(otsd_oe_correlation(cells.head(2))["rho"])
