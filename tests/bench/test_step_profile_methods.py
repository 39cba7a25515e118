"""``bench.step_profile`` for a whole engine step: formula, counts, rows and page at tiny size."""

from __future__ import annotations

import pandas as pd
import pytest
import torch
from gpytorch.mlls import ExactMarginalLogLikelihood

from boexplore.bench.step_profile import method_report, method_step
from boexplore.bench.step_profile.flops import count_flops
from boexplore.bo.model import _new_model


@pytest.mark.parametrize(("n", "d"), [(15, 3), (40, 12)])
def test_mll_flop_formula_matches_the_counted_ops(n, d):
    X = torch.rand(n, d, dtype=torch.float64)
    Y = torch.randn(n, 1, dtype=torch.float64)
    model = _new_model(X, Y)
    model.train()
    mll = ExactMarginalLogLikelihood(model.likelihood, model)

    def evaluate():
        model.zero_grad()
        (-mll(model(*model.train_inputs), model.train_targets)).backward()

    evaluate()
    counted, _, unknown = count_flops(evaluate)
    assert not unknown
    assert counted == pytest.approx(method_step.mll_flops(n, d), rel=0.02)
    # a control: the formula of another size is not within 2 %
    assert counted != pytest.approx(method_step.mll_flops(n + 3, d), rel=0.02)


def test_profile_state_rows_count_the_fit_and_the_proposal(tmp_path):
    rows = method_step.profile_state(
        "tiny", "hartmann", 3, 14, 0, {"logei": "logei", "ts": "ts(candidates=256)"},
        {"num_restarts": 2, "raw_samples": 32}, ["botorch", "log"], [tmp_path], None,
    )  # fmt: skip
    table = pd.DataFrame(rows)
    assert len(table) == 4 and set(table["gp_fit"]) == {"botorch", "log"}
    assert (table["trace_rows"] == 0).all()  # no trace in tmp_path: a Sobol state
    assert (table["mll_evals"] > 0).all() and (table["lbfgsb_iters"] > 0).all()
    assert (table["hyperparameters"] == 3 + 2).all()  # lengthscales, noise, constant mean
    logei = table[table["method"] == "logei"]
    assert (logei["acq_evals_grad"] > 0).all() and (logei["acq_evals_raw"] > 0).all()
    ts = table[table["method"] == "ts"]
    assert (ts["acq_evals_grad"] == 0).all() and (ts["ts_candidates"] == 256).all()
    assert table["same_point"].all() and table["profiled_same_fit"].all()
    assert (table["step_cpu_s"] >= table["fit_cpu_s"]).all()
    # the fit's profiled seconds are all in the fit phase; a TS proposal's partly in its paths
    assert (
        table["fit_s_phase_fit"]
        > 0.9 * table[[c for c in table if c.startswith("fit_s_phase_")]].sum(axis=1)
    ).all()
    assert (ts["acq_s_phase_ts"] > 0).all() and (logei["acq_s_phase_ts"] == 0).all()
    text = method_report.render_markdown(table, "x.csv")
    assert "## Findings" in text and "log-space fit" in text
    sp = method_report.speedups(table)
    assert len(sp) == 1 and sp["speedup"].iloc[0] > 0


def test_the_state_comes_from_a_released_trace_when_there_is_one(tmp_path):
    from boexplore.bo.state import sobol_unit

    X = sobol_unit(3, 5, 0, 8)
    folder = tmp_path / "lbl" / "logei"
    folder.mkdir(parents=True)
    pd.DataFrame({f"x_{j}": X[:, j] for j in range(3)} | {"y": [0.0] * 8}).to_parquet(
        folder / "seed0.parquet"
    )
    Xs, y, k = method_step.engine_state("hartmann", 3, 12, 0, [tmp_path], "lbl")
    assert k == 8 and Xs.shape == (12, 3)
    assert (Xs[:8] == X).all() and len(y) == 12
