"""P1-U1..U3 rows on synthetic runs whose answer is known, each with a control that must fail."""

import zlib

import numpy as np
import pandas as pd
import pytest

from boexplore.analysis.claimkit.verdict import MISSING, NOT_REPRODUCED, REPRODUCED
from boexplore.analysis.config import analysis_config
from boexplore.analysis.uses.claims import uses_rows
from boexplore.analysis.uses.inputs import references_from_metrics, run_table
from boexplore.metrics.scoring import score_trace

TUNE = {"t1": 3, "t2": 4, "t3": 3}
DECIDE = {"d1": 3, "d2": 4, "d3": 3, "d4": 4}
T, N_INIT, SEEDS = 24, 6, 6


def _points(kind: str, d: int, rng: np.random.Generator) -> np.ndarray:
    init = rng.random((N_INIT, d))
    n = T - N_INIT
    if kind == "corners":  # over-explores: far jumps
        rest = rng.integers(0, 2, size=(n, d)).astype(float)
    elif kind == "cluster":  # under-explores: one tight spot
        rest = np.clip(init[0] + 0.003 * rng.standard_normal((n, d)), 0, 1)
    elif kind == "uniform":  # random search
        rest = rng.random((n, d))
    else:  # balanced: a local search with a moderate step
        rest = np.clip(init[0] + 0.12 * rng.standard_normal((n, d)), 0, 1)
    return np.vstack([init, rest])


def _metrics(
    kinds: dict[str, str], final: dict[str, float], noise_only: bool = False
) -> pd.DataFrame:
    frames = []
    for problems in (TUNE, DECIDE):
        for problem, d in problems.items():
            for method, kind in kinds.items():
                for seed in range(SEEDS):
                    rng = np.random.default_rng(zlib.crc32(f"{problem}/{method}/{seed}".encode()))
                    X = _points(kind, d, rng)
                    level = (
                        rng.normal(-0.5, 0.2) if noise_only else final[method] + rng.normal(0, 0.05)
                    )
                    y = np.r_[rng.uniform(-1.5, -1.0, N_INIT), np.linspace(-1.0, level, T - N_INIT)]
                    best = np.maximum.accumulate(y)
                    tr = pd.DataFrame(X, columns=[f"x_{i}" for i in range(d)]).assign(
                        problem=problem, dim=d, method=method, seed=seed, eval_index=np.arange(T),
                        iteration=np.r_[np.zeros(N_INIT, int), np.arange(1, T - N_INIT + 1)],
                        best_so_far=best, regret=-best,
                    )  # fmt: skip
                    frames.append(score_trace(tr))
    return pd.concat(frames, ignore_index=True)


KINDS = {
    "logei": "local",
    "random": "uniform",
    "ts": "corners",
    "ucb": "cluster",
    "ts_raasp": "local",
}
GOOD = {"logei": -0.05, "random": -0.6, "ts": -0.6, "ucb": -0.6, "ts_raasp": -0.05}
SECTION = {
    "n_boot": 100,
    "power": {"n_sim": 50},
    "uses": {
        "tune": list(TUNE),
        "decide": list(DECIDE),
        "reference_methods": ["random", "logei"],
        "judged_methods": ["ts", "logei", "ucb"],
        "monitor": {"warmup": 2, "patience": 2, "flag_at": 0.75},
        "stop": {"window": 3},
        "u1": {"n_perm": 40},
        "u3": {"base": "ts", "fixes": ["ts_raasp"], "control": "random", "min_dim": 3},
    },
}


@pytest.fixture(scope="module")
def designed():
    return _metrics(KINDS, GOOD)


def _rows(metrics, section=SECTION):
    cfg = analysis_config(section)
    return {f"{r['claim_id']}{r['variant']}": r for r in uses_rows(metrics, cfg, [], [])}


def test_monitor_flags_the_designed_runs(designed):
    cfg = analysis_config(SECTION)["uses"]
    rt = run_table(
        designed[designed["problem"].isin(DECIDE)], cfg, references_from_metrics(designed, cfg)
    )
    share = rt.groupby("method")["state"].agg(lambda s: s.value_counts(normalize=True).idxmax())
    assert share["ts"] == "over-exploring" and share["ucb"] == "under-exploring"
    assert share["logei"] == "balanced"


def test_u1_and_u3_reproduced_on_designed_data_and_controls_fail(designed):
    rows = _rows(designed)
    assert rows["P1-U1"]["verdict"] == REPRODUCED, rows["P1-U1"]["note"]
    assert "control (random flags, draw 0): reproduced" not in rows["P1-U1"]["note"]
    assert rows["P1-U3ts_raasp"]["verdict"] == REPRODUCED, rows["P1-U3ts_raasp"]["note"]
    assert "must fail" in rows["P1-U3ts_raasp"]["note"]
    assert (
        f"control (ts→random, does not lower exploration): {REPRODUCED}"
        not in rows["P1-U3ts_raasp"]["note"]
    )
    assert "saved" in rows["P1-U2"]["note"]


def test_u1_not_reproduced_when_regret_ignores_exploration():
    rows = _rows(_metrics(KINDS, GOOD, noise_only=True))
    assert rows["P1-U1"]["verdict"] != REPRODUCED  # control: same flags, unrelated regret
    assert rows["P1-U3ts_raasp"]["verdict"] != REPRODUCED


def test_u3_fails_when_the_fix_does_not_help(designed):
    bad = designed.copy()
    worse = bad["method"] == "ts_raasp"
    bad.loc[worse, "best_so_far"] -= 1.0
    bad.loc[worse, "regret"] += 1.0
    assert _rows(bad)["P1-U3ts_raasp"]["verdict"] == NOT_REPRODUCED


def test_rows_are_missing_without_a_split(designed):
    rows = _rows(designed, {})
    assert all(r["verdict"].startswith(MISSING) for r in rows.values())
