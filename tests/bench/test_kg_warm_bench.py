"""The qKG benchmark's warm-start column: BO-like sequential states, the kept tree, the report."""

import json

import numpy as np
import pandas as pd
import pytest
import torch

from boexplore.bench import kg
from boexplore.bo.acquisition import proposal

#: Tiny qKG settings (the real ones take seconds to a minute per step).
TINY = {"fantasies": 4, "num_restarts": 3, "raw_samples": 16}
WARM_TINY = {**TINY, "warm_start": True}


pytestmark = pytest.mark.usefixtures("quiet_single_thread")


@pytest.fixture(scope="module")
def state() -> kg.SequentialState:
    return kg.sequential_state("branin", 2, 6, 0, TINY)


def test_sequential_state_ends_with_the_previous_steps_candidate(state):
    from boexplore.bo.loop import sobol_unit
    from boexplore.problems import get_problem

    assert state.X.shape == (6, 2) and state.y.shape == (6,)
    assert np.array_equal(state.X[:5], sobol_unit(2, 0, 0, 5))  # D_{n-1}: the Sobol design
    # the last point is the candidate of the kept one-shot tree (candidate + 4 fantasy points)
    assert state.tree.shape == (1 + TINY["fantasies"], 2)
    assert np.allclose(state.X[-1], state.tree[0].numpy())
    assert state.y[-1] == pytest.approx(get_problem("branin", 2).evaluate(state.X[-1:])[0])
    assert state.model.train_inputs[0].shape == (6, 2)  # the GP is fitted on D_n
    assert state.cpu_s > 0
    # the previous step is the one a cold BO step on D_{n-1} takes with its own seed
    prev = kg._fit(state.X[:5], state.y[:5])
    x, _ = kg.kg_step(prev, state.bounds, TINY, 0 + kg.PREVIOUS_STEP_SEED)
    assert np.allclose(x.numpy()[0], state.X[-1])


def test_warm_column_starts_from_the_kept_tree(monkeypatch):
    seen: dict[str, list] = {"trees": [], "ics": [], "states": []}
    real_generator, real_state = proposal.warm_ic_generator, kg.sequential_state

    def spy_generator(tree, *args, **kwargs):
        seen["trees"].append(tree.clone())
        generate = real_generator(tree, *args, **kwargs)

        def spy(*a, **kw):
            ics = generate(*a, **kw)
            seen["ics"].append(ics.clone())
            return ics

        return spy

    def spy_state(*args, **kwargs):
        st = real_state(*args, **kwargs)
        seen["states"].append(st)
        return st

    monkeypatch.setattr(proposal, "warm_ic_generator", spy_generator)
    monkeypatch.setattr(kg, "sequential_state", spy_state)
    columns = {"current": TINY, kg.WARM: WARM_TINY}
    rows = pd.DataFrame(kg.run_state("branin", 2, 6, 0, columns, reference=False,
                                     sequential=TINY))  # fmt: skip
    (st,) = seen["states"]
    # only the warm column's step used the warm generator (not the state's step, not current)
    assert len(seen["trees"]) == len(seen["ics"]) == 1
    assert torch.equal(seen["trees"][0], st.tree)
    ics = seen["ics"][0]
    assert ics.shape == (TINY["num_restarts"], 1 + TINY["fantasies"], 2)
    assert torch.equal(ics[0], st.tree)  # restart 0 is the previous step's full solution
    # both columns are paired on the same BO-like state; the warm row is flagged
    assert set(rows["state_kind"]) == {kg.SEQUENTIAL}
    assert rows["state_last_x"].nunique() == 1
    assert json.loads(rows["state_last_x"].iloc[0]) == pytest.approx(st.X[-1].tolist(), abs=1e-6)
    assert rows.set_index("column")["warm_start"].to_dict() == {"current": False, kg.WARM: True}
    assert (rows["cpu_s"] > 0).all() and (rows["state_cpu_s"] == st.cpu_s).all()


def test_warm_step_needs_the_previous_tree(state):
    with pytest.raises(ValueError, match="previous tree"):
        kg.kg_step(state.model, state.bounds, WARM_TINY, 1)
    wrong = proposal.OneShotCarry(torch.zeros(3, 2, dtype=torch.float64))
    with pytest.raises(ValueError, match="previous tree"):
        kg.kg_step(state.model, state.bounds, WARM_TINY, 1, wrong)
    with pytest.raises(ValueError, match="sequential"):
        kg.run_state("branin", 2, 6, 0, {kg.WARM: WARM_TINY}, reference=False)


def test_cold_step_is_the_optimize_acqf_call_of_the_confirmatory_run(state):
    """Routing the step through the engine's ``propose`` left the cold columns bit-identical."""
    from botorch.optim import optimize_acqf

    torch.manual_seed(3)
    acqf = kg._kg(state.model, TINY["fantasies"], 3)
    before, _ = optimize_acqf(acqf, bounds=state.bounds, q=1, num_restarts=TINY["num_restarts"],
                              raw_samples=TINY["raw_samples"],
                              options={"maxiter": 200, **proposal.KG_OPTIONS})  # fmt: skip
    now, _ = kg.kg_step(state.model, state.bounds, TINY, 3)
    assert torch.equal(now, before.reshape(1, -1))


def _rows(warm_cpu: float) -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng(0)
    for problem, dim in (("a", 2), ("b", 6)):
        for seed in range(6):
            for column, gain, cpu, warm in (("current", 0.5, 10.0, False),
                                            (kg.WARM, 0.5, warm_cpu, True),
                                            (kg.RANDOM_POINT, 0.0, 0.0, False)):  # fmt: skip
                rows.append({"problem": problem, "dim": dim, "n": 20, "seed": seed,
                             "opt_seed": seed, "column": column, "fantasies": 64,
                             "num_restarts": 10, "raw_samples": 1024, "warm_start": warm,
                             "cpu_s": cpu, "kg_ref": 1.0 + gain + rng.normal(0, 0.01) * (gain > 0),
                             "ref_cpu_s": 1.0, "v0": 1.0, "x": "[0.5, 0.5]",
                             "state_kind": kg.SEQUENTIAL, "state_last_x": f"[{seed}]"})  # fmt: skip
    return pd.DataFrame(rows)


def test_report_has_the_warm_column_and_the_pre_registered_decision():
    page = kg.render_markdown(_rows(warm_cpu=8.0))
    assert "| a | 2 | warm start | 64 | 10 | 1024 | 6 |" in page
    assert "BO-like (`--sequential`)" in page and "Warm-start rows" in page
    assert "## Decision on 'warm start'" in page
    assert "Verdict: adopt" in page
    table, verdict = kg.warm_decision(_rows(warm_cpu=12.0), n_boot=200)
    assert table["quality"].all() and not table["faster"].any()
    assert table["control_fails"].all() and verdict.startswith("stays off: is not faster")
    no_control = _rows(warm_cpu=8.0).query("column != @kg.RANDOM_POINT")
    assert kg.warm_decision(no_control, n_boot=200)[1].startswith("no decision")


def test_tables_never_mix_state_kinds_or_disagree_on_a_state():
    rows = _rows(warm_cpu=8.0)
    assert kg.state_kind(rows) == kg.SEQUENTIAL
    assert kg.state_kind(rows.drop(columns=["state_kind", "state_last_x"])) == kg.SOBOL
    with pytest.raises(ValueError, match="mixes"):
        kg.state_kind(rows.assign(state_kind=[kg.SOBOL] + [kg.SEQUENTIAL] * (len(rows) - 1)))
    shard = rows.copy()
    shard.loc[0, "state_last_x"] = "[0.123]"  # another shard formed this state differently
    with pytest.raises(ValueError, match="disagree"):
        kg.state_kind(shard)
    with pytest.raises(SystemExit):
        kg.main(["--warm", "--out", "unused.md"])  # --warm needs --sequential


def test_sequential_warm_run_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setitem(kg.COLUMNS, "current", TINY)
    monkeypatch.setattr(kg, "REFERENCE", {**kg.REFERENCE, "fantasies": 8, "num_restarts": 2,
                                          "raw_samples": 16})  # fmt: skip
    out = tmp_path / "warm.md"
    args = ["--problems", "branin:2", "--sizes", "6", "--seeds", "1", "--sequential", "--warm",
            "--control", "--columns", json.dumps({"current": TINY}), "--out", str(out)]  # fmt: skip
    assert kg.main(args) == 0
    rows = pd.read_csv(out.with_suffix(".csv"))
    assert list(rows["column"]) == ["current", kg.WARM, kg.RANDOM_POINT]
    assert kg.state_kind(rows) == kg.SEQUENTIAL
    page = out.read_text()
    assert "| branin | 2 | warm start | 4 | 3 | 16 | 1 |" in page
    # a Sobol-state run cannot append to the sequential table
    with pytest.raises(SystemExit):
        kg.main(["--problems", "branin:2", "--sizes", "6", "--seeds", "1", "--columns",
                 json.dumps({"current": TINY}), "--out", str(out)])  # fmt: skip
