"""``bench.step_profile`` at tiny size: the attribution rule (a call graph by hand, a qKG step and
a step without fantasies as the control), the evaluation count against a wrapper of its own,
the flop formula against the counted ops, and the CLI's table and report."""

from __future__ import annotations

import copy
import functools
import warnings
from pathlib import Path

import pandas as pd
import pytest
import torch

from boexplore.bench import kg
from boexplore.bench import step_profile as kp

REPO = Path(__file__).resolve().parents[2]
TINY = {"fantasies": 4, "num_restarts": 2, "raw_samples": 16}
TINY_ARGS = ["--fantasies", "4", "--num-restarts", "2", "--raw-samples", "16"]
SHORT = 15  # L-BFGS-B iterations per restart in these tests (bench.kg.MAXITER)


@pytest.fixture(scope="module", autouse=True)
def quiet_short_steps():
    """One torch thread, no library warnings, short L-BFGS-B runs for the whole module."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with warnings.catch_warnings(), pytest.MonkeyPatch.context() as mp:
        warnings.simplefilter("ignore")
        mp.setattr(kg, "MAXITER", SHORT)
        yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def state():
    return kg._state("hartmann", 6, 15, 0)


@pytest.fixture(scope="module")
def step(state) -> tuple[kp.StepProfile, int]:
    """A profiled qKG step and the qKG forward calls a wrapper of this test counted."""
    from botorch.acquisition import qKnowledgeGradient

    calls: list[int] = []
    original = qKnowledgeGradient.forward

    @functools.wraps(original)
    def counting(self, X):
        calls.append(1)
        return original(self, X)

    model, bounds = state
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(qKnowledgeGradient, "forward", counting)
        prof = kp.profile_step(copy.deepcopy(model), bounds, TINY, 0)
    return prof, len(calls)


def _by(seconds: dict, index: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, v in seconds.items():
        out[key[index]] = out.get(key[index], 0.0) + v
    return out


def test_the_shares_of_a_qkg_step_sum_to_100_percent(step):
    prof, _ = step
    cats = _by(prof.seconds, 0)
    assert sum(cats.values()) == pytest.approx(prof.total_s, rel=1e-9)
    shares = {c: 100.0 * v / prof.total_s for c, v in cats.items()}
    assert sum(shares.values()) == pytest.approx(100.0, abs=1e-6)
    assert set(cats) <= set(kp.CATEGORIES)
    for cat in kp.CATEGORIES:  # a qKG step spends time in every category
        assert cats.get(cat, 0.0) > 0.0, cat
    phases = _by(prof.seconds, 1)
    assert phases[kp.PHASE_INITIAL] > 0 and phases[kp.PHASE_OPTIMISE] > 0
    assert prof.cpu_s >= 0.9 * prof.total_s


def test_the_evaluation_count_is_the_number_of_qkg_forward_calls(step):
    prof, counted = step
    assert counted > 0 and prof.calls == counted == prof.evaluations.calls
    grad, raw = prof.evaluations.count(True), prof.evaluations.count(False)
    assert grad > 0 and raw >= TINY["raw_samples"]  # L-BFGS-B trees; raw samples + final values


def test_the_sampler_attributes_the_same_step(state):
    model, bounds = state
    prof = kp.profile_step(copy.deepcopy(model), bounds, TINY, 0, profiler="sample")
    cats = _by(prof.seconds, 0)
    assert prof.total_s == pytest.approx(prof.cpu_s, rel=1e-9)  # every CPU second, once
    assert cats[kp.FANTASY] > 0 and cats[kp.SOLVES] > 0 and cats[kp.BACKWARD] > 0
    assert prof.calls == prof.evaluations.calls > 0


@pytest.mark.parametrize("profiler", kp.PROFILERS)
def test_a_step_without_fantasies_is_never_attributed_to_fantasies(state, profiler):
    """The control: LogEI optimised like a qKG step (raw samples, L-BFGS-B) on the same GP."""
    from botorch.acquisition import LogExpectedImprovement
    from botorch.optim import optimize_acqf

    model, bounds = state
    acqf = LogExpectedImprovement(copy.deepcopy(model), best_f=float(model.train_targets.max()))

    def step():
        return optimize_acqf(acqf, bounds, q=1, num_restarts=2, raw_samples=16,
                             options={"maxiter": SHORT})  # fmt: skip

    if profiler == "cprofile":
        _, stats, _ = kp.profile_call(step)
        seconds = kp.attribute(stats)
        assert sum(seconds.values()) == pytest.approx(sum(r[2] for r in stats.values()), rel=1e-9)
    else:
        _, seconds, cpu = kp.sample_call(step, interval=0.0005)
        assert sum(seconds.values()) == pytest.approx(cpu, rel=1e-9) and cpu > 0
    cats = _by(seconds, 0)
    assert cats.get(kp.FANTASY, 0.0) == 0.0
    if profiler == "cprofile":  # every call is seen: also the small ones
        for cat in (kp.KERNEL, kp.SOLVES, kp.LBFGSB, kp.BACKWARD, kp.INITIAL):
            assert cats.get(cat, 0.0) > 0.0, cat


def test_the_sampler_applies_the_rule_to_the_whole_stack(tmp_path):
    """Functions in files named like the libraries': the innermost category wins, an own-time
    category only in the innermost frame, the outermost phase."""
    import importlib.util
    import sys

    def load(rel: str, code: str):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        spec = importlib.util.spec_from_file_location(rel.replace("/", "_")[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    here = load("glue.py", "import sys\ndef frame():\n    return sys._getframe(1)\n")
    opt = load("scipy/optimize/_lbfgsb_py.py", "def minimize(f):\n    return f()\n")
    fant = load("botorch/models/model.py", "def fantasize(f):\n    return f()\n")
    gen = load("botorch/generation/gen.py", "def gen_candidates_scipy(f):\n    return f()\n")
    sys.modules.pop("glue", None)

    def in_objective():
        return here.frame()

    def in_optimiser():
        return opt.minimize(here.frame)  # the frame of minimize itself

    assert kp.stack_context(in_objective()) == (kp.OTHER, kp.PHASE_REST)
    assert kp.stack_context(opt.minimize(in_objective)) == (kp.OTHER, kp.PHASE_REST)
    assert kp.stack_context(in_optimiser()) == (kp.LBFGSB, kp.PHASE_REST)
    under = gen.gen_candidates_scipy(lambda: fant.fantasize(lambda: opt.minimize(here.frame)))
    assert kp.stack_context(under) == (kp.LBFGSB, kp.PHASE_OPTIMISE)
    under = gen.gen_candidates_scipy(lambda: fant.fantasize(in_objective))
    assert kp.stack_context(under) == (kp.FANTASY, kp.PHASE_OPTIMISE)


def _edge(tt: float, ct: float, calls: int = 1) -> tuple[int, int, float, float]:
    return (calls, calls, tt, ct)


def test_the_attribution_rule_on_a_call_graph():
    """Innermost category, L-BFGS-B's own time only, exact split of self time over callers,
    and the callers' contexts mixed by inclusive time (module docstring)."""
    step = ("/x/boexplore/bench/kg.py", 1, "kg_step")
    fant = ("/x/botorch/models/model.py", 10, "fantasize")
    chol = ("~", 0, "<built-in method torch._C._linalg.linalg_cholesky_ex>")
    matmul = ("~", 0, "<method 'matmul' of 'torch._C.TensorBase' objects>")
    gen = ("/x/botorch/generation/gen.py", 62, "gen_candidates_scipy")
    lbfgs = ("/x/scipy/optimize/_lbfgsb_py.py", 5, "_minimize_lbfgsb")
    setulb = ("~", 0, "<built-in method scipy.optimize._lbfgsb.setulb>")
    objective = ("/x/botorch/generation/gen.py", 400, "f_np_wrapper")
    backward = ("~", 0, "<method 'run_backward' of 'torch._C._EngineBase' objects>")
    solve_bw = ("/x/linear_operator/functions/_solve.py", 90, "backward")
    glue = ("/x/botorch/utils/transforms.py", 7, "glue")  # reached from two contexts
    leaf = ("~", 0, "<built-in method torch.exp>")
    stats = {
        step: (1, 1, 0.1, 6.9, {}),
        fant: (1, 1, 0.5, 2.5, {step: _edge(0.5, 2.5)}),
        chol: (1, 1, 1.0, 1.0, {fant: _edge(1.0, 1.0)}),
        matmul: (2, 2, 0.9, 0.9, {fant: _edge(0.5, 0.5), objective: _edge(0.4, 0.4)}),
        glue: (2, 2, 0.0, 0.8, {fant: _edge(0.0, 0.2), objective: _edge(0.0, 0.6)}),
        leaf: (1, 1, 0.8, 0.8, {glue: _edge(0.8, 0.8)}),
        gen: (1, 1, 0.05, 4.3, {step: _edge(0.05, 4.3)}),
        lbfgs: (1, 1, 0.1, 4.25, {gen: _edge(0.1, 4.25)}),
        setulb: (1, 1, 0.2, 0.2, {lbfgs: _edge(0.2, 0.2)}),
        objective: (1, 1, 0.3, 3.95, {lbfgs: _edge(0.3, 3.95)}),
        backward: (1, 1, 0.6, 0.8, {objective: _edge(0.6, 0.8)}),
        solve_bw: (1, 1, 0.2, 0.2, {backward: _edge(0.2, 0.2)}),
    }
    out = kp.attribute(stats)
    cats, phases = _by(out, 0), _by(out, 1)
    assert cats[kp.FANTASY] == pytest.approx(0.5 + 0.5 + 0.8 * 0.2 / 0.8)
    assert cats[kp.SOLVES] == pytest.approx(1.0 + 0.2)  # innermost: under fantasize / backward
    assert cats[kp.LBFGSB] == pytest.approx(0.1 + 0.2)  # own time and its C routine
    assert cats[kp.BACKWARD] == pytest.approx(0.6)
    assert cats[kp.OTHER] == pytest.approx(0.1 + 0.05 + 0.3 + 0.4 + 0.8 * 0.6 / 0.8)
    assert sum(out.values()) == pytest.approx(sum(r[2] for r in stats.values()))
    assert phases[kp.PHASE_OPTIMISE] == pytest.approx(0.05 + 0.1 + 0.2 + 0.3 + 0.4 + 0.6
                                                      + 0.2 + 0.6)  # fmt: skip
    assert kp.classify(step) == kp.Match() and kp.classify(lbfgs).inherit is False


def test_the_flop_formula_matches_the_ops_that_run(state):
    model, bounds = state
    F, d, n = 4, 6, 15
    acqf = kg._kg(copy.deepcopy(model), F, 0)
    X = torch.rand(1, 1 + F, d, dtype=torch.float64)

    def with_grad():
        Xg = X.clone().requires_grad_(True)
        torch.autograd.grad(acqf(Xg).sum(), Xg)

    def forward_only():
        with torch.no_grad():
            acqf(X)

    with_grad()
    for fn, grad in ((with_grad, True), (forward_only, False)):
        counted, per_op, unknown = kp.count_flops(fn)
        assert not unknown and per_op["linalg_cholesky_ex"] > 0
        assert sum(kp.model_flops(n, F, d, 1, grad).values()) == pytest.approx(counted, rel=0.02)


def test_op_flops_of_single_ops():
    counted, per_op, _ = kp.count_flops(lambda: torch.rand(3, 4) @ torch.rand(4, 5))
    assert counted == 2 * 3 * 4 * 5 and set(per_op) == {"mm"}
    A = torch.eye(6, dtype=torch.float64).expand(2, 6, 6)
    counted, per_op, _ = kp.count_flops(lambda: torch.linalg.cholesky(A))
    assert counted == pytest.approx(2 * 6**3 / 3)
    counted, _, _ = kp.count_flops(lambda: torch.linalg.qr(torch.rand(6, 6)))
    assert counted == pytest.approx(8 / 3 * 6**3)


def test_paper_settings_come_from_the_config(tmp_path):
    assert kp.paper_settings(REPO / "config/paper.yaml") == {
        "fantasies": 64, "num_restarts": 10, "raw_samples": 1024, "maxiter": kp.STEP_MAXITER,
        "fantasy_cache": 1,
    }  # fmt: skip
    text = (REPO / "config/paper.yaml").read_text()
    other = tmp_path / "other.yaml"
    other.write_text(
        text.replace("  acq_timeout: 2700", "  acq_timeout: 2700\n  extra: {acq_maxiter: 50}")
    )
    with pytest.raises(ValueError, match="acq_maxiter"):
        kp.paper_settings(other)


def test_problems_by_config_label_or_name_and_dimension():
    config = REPO / "config/paper.yaml"
    assert kp.resolve_problem("hartmann6", config) == ("hartmann", 6)
    assert kp.resolve_problem("ackley60", config) == ("ackley", 60)
    assert kp.resolve_problem("branin:2", config) == ("branin", 2)
    with pytest.raises(ValueError):
        kp.resolve_problem("hartmann", config)


def test_the_cli_writes_the_table_and_the_report(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)  # the default config
    csv = tmp_path / "kg-profile.csv"
    argv = ["--problem", "hartmann6", "--n", "15", *TINY_ARGS, "--out", str(csv),
            "--profiler", "cprofile", "--profiler", "sample"]  # fmt: skip
    assert kp.main(argv) == 0
    rows = pd.read_csv(csv)
    assert list(rows["profiler"]) == ["cprofile", "sample"]
    assert rows["same_point"].all() and rows["acqf_calls"].nunique() == 1
    r = rows.iloc[0]
    assert (r.problem, r.dim, r.n, r.fantasies, r.maxiter) == ("hartmann", 6, 15, 4, SHORT)
    assert bool(r.same_point)  # the profiled step is the plain step's computation
    shares = sum(r[f"s_{s}"] for s in kp.CATEGORIES.values()) / r.profiled_total_s
    assert shares == pytest.approx(1.0, abs=1e-9)
    phases = sum(r[f"s_phase_{s}"] for s in kp.PHASES.values()) / r.profiled_total_s
    assert phases == pytest.approx(1.0, abs=1e-9)
    assert r.acqf_calls > 0 and r.trees_grad > 0 and r.step_cpu_s > 0
    assert r.flops_grad_counted == pytest.approx(r.flops_grad_model, rel=0.02)
    assert r.gflops_grad > 0 and r.gemm_gflops > 0 and pd.isna(r.uncounted_ops)
    md = csv.with_suffix(".md").read_text()
    assert "| hartmann † | 6 | 15 | cprofile (cache kept) | 4 / 2 / 16 / 15 |" in md
    assert "Not run yet" in md
    assert "| hartmann † | 6 | 15 | sample (cache kept) | 4 / 2 / 16 / 15 |" in md
    assert "## Per acquisition evaluation" in md
    csv.with_suffix(".md").unlink()
    assert kp.main(["--report", "--out", str(csv)]) == 0
    assert csv.with_suffix(".md").read_text() == md
    again = kp.merge(rows, rows.iloc[:1].assign(step_cpu_s=-1.0))  # a rerun replaces its row
    assert len(again) == 2 and sorted(again["step_cpu_s"])[0] == -1.0


def test_the_committed_page_is_generated_from_the_committed_table():
    csv = REPO / "docs/kg-profile.csv"
    rows = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=kp.KEY)
    paper = kp.paper_settings(REPO / "config/paper.yaml")
    assert (REPO / "docs/kg-profile.md").read_text() == kp.render_markdown(rows, paper, csv.name)
    if not len(rows):
        assert "Not run yet" in kp.render_markdown(rows, paper, csv.name)


def _finding_row(kept: int, solves: float, step: float, grad: float) -> dict:
    row = {"problem": "hartmann", "dim": 6, "n": 300, "profiler": "sample", "fantasy_cache": kept,
           "profiled_total_s": 100.0, "flops_grad_mean_cache": 98.0, "flops_grad_model": 100.0,
           "step_cpu_s": step, "eval_grad_cpu_s": grad}  # fmt: skip
    row |= {f"s_{s}": 0.0 for s in kp.CATEGORIES.values()}
    row |= {"s_solves": solves, "s_other": 100.0 - solves}
    return row


def test_the_findings_name_the_largest_category_and_the_kept_cache_speed_up():
    rows = pd.DataFrame([_finding_row(0, 90.0, 900.0, 1.2), _finding_row(1, 20.0, 75.0, 0.06)])
    text = "\n".join(kp.findings_lines(rows))
    assert "without the cache the largest category is posterior solves (90% " in text
    assert "is 98% of a gradient evaluation's flops" in text
    assert "the plain step 900 → 75 CPU s (12.0× faster)" in text
    assert "one gradient evaluation 1.2 → 0.06 CPU s (20.0×)" in text
    assert "the largest category is then other (80%)" in text
    assert kp.findings_lines(rows.iloc[1:]) == []  # no plain row: nothing to say
