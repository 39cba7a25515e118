"""The fixed quality rule of the speed benchmark: it passes equal settings, fails shifted ones
and cannot pass on too few seeds."""

import numpy as np
import pandas as pd

from boexplore.bench.quality import paired_seed_differences, quality_decision


def _rows(shift: dict[str, float], seeds: int = 5, cells: int = 6, seed: int = 0) -> pd.DataFrame:
    """Two columns per (problem, method) cell; ``proposed`` = ``current`` + shift (in seed SDs)
    + small independent noise; seeds share a common per-seed effect (paired design)."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(cells):
        base = {m: rng.normal(size=seeds) for m in ("best", "otsd_norm", "oe")}
        for column in ("current", "proposed"):
            for s in range(seeds):
                rec = {"problem": f"p{c}", "dim": 2, "method": "logei", "column": column, "seed": s}
                for m, v in base.items():
                    extra = shift.get(m, 0.0) + 0.05 * rng.normal() if column == "proposed" else 0.0
                    rec[m] = v[s] + extra
                rows.append(rec)
    return pd.DataFrame(rows)


def _decide(rows: pd.DataFrame) -> dict:
    return quality_decision(paired_seed_differences(rows, "proposed", "current"))


def test_equal_settings_hold_at_the_nominal_error_rate():
    # six tests at alpha = 0.05 (per metric: Holm over cells, pooled sign test): the rule is
    # tuned to catch shifts, so equal settings pass with probability about 0.95^6 = 0.74
    held = [_decide(_rows({}, seed=s))["holds"] for s in range(40)]
    assert np.mean(held) >= 0.6


def test_shifted_exploration_or_worse_best_fails():
    for metric, shift in (("otsd_norm", 1.0), ("oe", -1.0), ("best", -1.0)):
        d = _decide(_rows({metric: shift}))
        assert not d["holds"], metric
        assert not d[metric]["ok"]
    # a better final best is not held against the cheaper settings
    assert _decide(_rows({"best": 1.0}))["holds"]


def test_one_seed_cannot_pass():
    d = _decide(_rows({}, seeds=1))
    assert not d["holds"]


def test_method_control_compares_methods_under_one_column():
    rows = _rows({})
    rows.loc[rows.column == "proposed", "method"] = "ucb"
    rows["column"] = "current"
    paired = paired_seed_differences(rows, "ucb", "logei", by="method")
    assert len(paired) == 6 and len(paired.iloc[0]["diff_best"]) == 5


def test_paper_estimate_runs_from_any_directory(tmp_path, monkeypatch):
    from boexplore.bench.quality import CANDIDATES, CURRENT, paper_cpu_hours

    monkeypatch.chdir(tmp_path)
    current = paper_cpu_hours(CURRENT)
    cheaper = paper_cpu_hours({**CURRENT, **CANDIDATES["effort_only"]})
    assert current > cheaper > 0


def test_column_method_params_reach_only_methods_that_have_them():
    from boexplore.bench.quality import with_method_params

    assert with_method_params("kg(fantasies=64)", {"fantasies": 32}) == "kg(fantasies=32)"
    assert with_method_params("kg+q2", {"fantasies": 16}) == "kg(fantasies=16)+q2"
    assert with_method_params("logei+tr", {"fantasies": 32}) == "logei+tr"
    assert with_method_params("ucb(beta=16)", {}) == "ucb(beta=16)"


def test_paper_estimate_counts_the_fantasy_lever():
    from boexplore.bench.quality import paper_cpu_hours

    base = paper_cpu_hours({})
    effort = paper_cpu_hours({"num_restarts": 5, "raw_samples": 512})
    both = paper_cpu_hours(
        {"num_restarts": 5, "raw_samples": 512, "method_params": {"fantasies": 32}}
    )
    assert both < effort < base
