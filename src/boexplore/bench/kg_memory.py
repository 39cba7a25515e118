"""Peak memory and CPU of one qKG step at paper scale, one fresh process per measurement.

``python -m boexplore.bench.kg_memory --out docs/kg-memory.csv``

Each row is measured in its own subprocess (so one peak never leaks into the next): the
GP is fitted on a Sobol design of ``n`` points of a real problem (``fit_cpu_s``), then one
of three things runs and the process's peak resident memory (``getrusage`` ``ru_maxrss``)
is recorded with the CPU seconds (``time.process_time``):

* ``step``: one full qKG step as the engine runs it (``optimize_acqf`` with the paper's
  fantasies, restarts, raw samples, 200 L-BFGS-B iterations and the given ``batch_limit`` /
  ``init_batch_limit``);
* ``grad``: one forward + backward pass of qKG on ``batch`` random one-shot q-batches (what
  one L-BFGS-B evaluation of ``batch`` restarts holds in memory);
* ``nograd``: one forward pass without gradients on ``batch`` raw samples (what the
  one-shot initial conditions hold per ``init_batch_limit`` chunk).

``peak_mb`` of every row, the resident size after imports (``import_mb``) and after the fit
(``fit_mb``) feed :func:`boexplore.bo.acquisition.kg_memory.fit_memory_model`. The rows are
appended to ``--out`` as they finish (a rerun skips rows already there; ``--rep K`` measures
the same cells again as repeat ``K``: the peak of one step varies between processes).

``python -m boexplore.bench.kg_memory --out docs/kg-memory.csv --report docs/kg-memory.md``
runs nothing and writes the tables, the model fit and the memory requests of the paper
config's qKG jobs from the CSV.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from boexplore.io import atomic_write_text

#: Paper settings of a qKG step (config/paper.yaml, today's KG_OPTIONS).
PAPER = {"fantasies": 64, "num_restarts": 10, "raw_samples": 1024, "maxiter": 200}
KEY = ["kind", "problem", "dim", "n", "fantasies", "batch", "init_batch", "fantasy_cache", "rep"]
SIZES = (100, 300, 500)
PROBLEMS = (("hartmann", 6), ("ackley", 60))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one measurement in this process (call it in a fresh one) and return its row."""
    import torch

    torch.set_num_threads(1)
    from boexplore.bench.kg import _kg, _state

    import_mb = _rss_mb()
    start = time.process_time()
    model, bounds = _state(spec["problem"], int(spec["dim"]), int(spec["n"]), int(spec["seed"]))
    fit_cpu, fit_mb = time.process_time() - start, _rss_mb()
    acqf = _kg(model, int(spec["fantasies"]), int(spec["seed"]), bool(spec.get("fantasy_cache")))
    q_aug = acqf.get_augmented_q_batch_size(1)
    torch.manual_seed(int(spec["seed"]))
    start = time.process_time()
    if spec["kind"] == "step":
        import warnings

        from botorch.optim import optimize_acqf

        options = {"maxiter": int(spec["maxiter"]), "batch_limit": int(spec["batch"]),
                   "init_batch_limit": int(spec["init_batch"])}  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            optimize_acqf(acqf, bounds=bounds, q=1, num_restarts=int(spec["num_restarts"]),
                          raw_samples=int(spec["raw_samples"]), options=options)  # fmt: skip
    else:
        X = torch.rand(int(spec["batch"]), q_aug, int(spec["dim"]), dtype=torch.float64)
        if spec["kind"] == "grad":
            X.requires_grad_(True)
            acqf(X).sum().backward()
        else:
            with torch.no_grad():
                acqf(X)
    return {**spec, "fit_cpu_s": fit_cpu, "acq_cpu_s": time.process_time() - start,
            "import_mb": import_mb, "fit_mb": fit_mb, "peak_mb": _rss_mb()}  # fmt: skip


def grid(sizes: Iterable[int] = SIZES, problems: Iterable[tuple[str, int]] = PROBLEMS,
         rep: int = 0, fantasy_cache: bool = False) -> list[dict[str, Any]]:  # fmt: skip
    """Probes (cheap, several batch sizes and fantasy counts) first, then the full steps;
    ``fantasy_cache``: with the engine's ``kg_fantasy_cache`` (rows say so)."""
    base = {"seed": 0, **PAPER, "fantasy_cache": int(fantasy_cache), "rep": rep}
    probes, steps = [], []
    for problem, dim in problems:
        for n in sizes:
            cell = {**base, "problem": problem, "dim": dim, "n": n}
            for batch in (1, 4, 10) if n < 500 else (1, 4):
                probes.append({**cell, "kind": "grad", "batch": batch, "init_batch": 0})
            probes.append({**cell, "kind": "grad", "batch": 4, "init_batch": 0, "fantasies": 32})
            probes.append({**cell, "kind": "nograd", "batch": 8, "init_batch": 0})
            steps.append({**cell, "kind": "step", "batch": 1, "init_batch": 8})
    steps.sort(key=lambda s: s["n"] * (1 + s["dim"] / 10))  # cheapest first
    # all restarts together where they fit in memory: the speed of batched restarts
    batched = [{**base, "problem": "hartmann", "dim": 6, "n": 100, "kind": "step", "batch": 10,
                "init_batch": 8}]  # fmt: skip
    return probes + steps + batched


def run_one(spec: dict[str, Any]) -> dict[str, Any]:
    """``measure(spec)`` in a fresh subprocess (its own peak memory)."""
    cmd = [sys.executable, "-m", "boexplore.bench.kg_memory", "--one", json.dumps(spec)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _key(row: dict[str, Any] | pd.Series) -> tuple[Any, ...]:
    return tuple(str(row[k]) for k in KEY)


def read_all_rows(csv: Path) -> pd.DataFrame:
    """Every measured row, both paths (``rep`` and ``fantasy_cache`` 0 where the file predates
    the column)."""
    rows = pd.read_csv(csv)
    for col in ("rep", "fantasy_cache"):
        if col not in rows:
            rows[col] = 0
        rows[col] = rows[col].fillna(0).astype(int)
    return rows


def read_rows(csv: Path) -> pd.DataFrame:
    """The rows of BoTorch's qKG path (what the memory model and the plain cost terms fit)."""
    return split_paths(read_all_rows(csv))[0]


def split_paths(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows of BoTorch's qKG, rows with ``bo.kg_fantasy_cache``): the memory model, the page's
    tables and the plain cost terms are the first's; the second has its own section and terms."""
    kept = rows["fantasy_cache"].fillna(0).astype(int) == 1 if "fantasy_cache" in rows else (
        pd.Series(False, index=rows.index))  # fmt: skip
    return rows[~kept], rows[kept]


#: What the page says about the engine's qKG settings (no numbers: those come from the CSV).
ENGINE_NOTES = [
    "- `bo.extra.kg_memory_cap_mb` (unset by default: restarts optimised one at a time) "
    "optimises as many restarts together as the memory model fits under the cap. Batching "
    "changes the floating-point order of the restarts' evaluations, so the chosen points differ "
    "in the last digits and a trace differs from one run one restart at a time. The measured "
    "step with restarts together took more CPU than one at a time (the line above the probes), "
    "so batching saves no time at these sizes and stays off.",
    "- `bo.extra.kg_warm_start` (off by default) starts one restart of a qKG step from the "
    "previous step's full one-shot solution (candidate and fantasy points, kept in the "
    "checkpoint) and draws the other restarts' initial conditions from half the raw samples. "
    "It went through the pre-registered protocol ([qKG warm start](kg-warm-start.md)): faster "
    "per step on both problems and within the gain-ratio floor on Hartmann-6 but not on "
    "Branin-2, so by the rule fixed before the run it stays off.",
    "- The options the engine passes for qKG (`maxiter`, `batch_limit`, `init_batch_limit`) keep "
    "BoTorch's batched per-restart L-BFGS-B path (`get_reasons_against_fast_path` returns "
    "nothing; the two limits are initialisation keys BoTorch removes before the optimiser). "
    "PES's `with_grad: False` (finite differences) leaves that path by design "
    "(`tests/bo/test_kg_warm_start.py`).",
]


def _phase_note(probes: pd.DataFrame) -> str:
    """Which phase holds more memory: one raw-sample chunk (8) or one restart with gradients."""
    full = probes[probes["fantasies"] == PAPER["fantasies"]]
    ic = full[(full["kind"] == "nograd") & (full["batch"] == 8)].set_index(["dim", "n"])
    one = full[(full["kind"] == "grad") & (full["batch"] == 1)].set_index(["dim", "n"])
    common = ic.index.intersection(one.index)
    ratio = ic.loc[common, "peak_mb"] / one.loc[common, "peak_mb"]
    cells = ", ".join(f"d = {d}, n = {n}: {r:.1f}×" for (d, n), r in ratio.items())
    return ("- Peak of one initial-condition chunk (8 raw samples, forward only) over the peak of "
            f"one restart with gradients: {cells}.")  # fmt: skip


def left_out_errors(rows: pd.DataFrame) -> dict[Any, float]:
    """Relative error of each full step predicted by the model refitted without its cell
    (problem, n, batch; all repeats), keyed by the row's index; NaN for a cell that is the
    only one of its kind (restarts together or one at a time), whose term nothing else fits."""
    from boexplore.bo.acquisition.kg_memory import fit_memory_model, predict_row

    out = {}
    cell = ["dim", "n", "batch"]
    steps = rows[rows["kind"] == "step"]
    for idx, step in steps.iterrows():
        same = (rows["kind"] == "step") & (rows[cell] == step[cell]).all(axis=1)
        alike = steps[(steps["batch"] > 1) == (step["batch"] > 1)]
        if len(alike[cell].drop_duplicates()) < 2:
            out[idx] = float("nan")
            continue
        model = fit_memory_model(rows[~same].to_dict("records"))
        out[idx] = predict_row(model, step.to_dict()) / step["peak_mb"] - 1.0
    return out


def _repeat_note(steps: pd.DataFrame) -> list[str]:
    """One sentence on the step cells measured more than once (peaks differ between runs)."""
    cells = []
    for (problem, d, n, b), cell in steps.groupby(["problem", "dim", "n", "batch"]):
        if len(cell) > 1:
            peaks = " and ".join(f"{p:.0f}" for p in cell.sort_values("rep")["peak_mb"])
            cells.append(f"{problem}-{d}, n = {n}, batch_limit {b}: {peaks} MB")
    if not cells:
        return []
    return ["", "Steps measured again in a new process (peak of each run): " + "; ".join(cells)
            + ". The allocator's high-water mark varies between runs of the same step; the "
            "request's margin has to hold that too."]  # fmt: skip


def _span(values: pd.Series) -> str:
    low, high = float(values.min()), float(values.max())
    return f"{low:.0f}" if round(low) == round(high) else f"{low:.0f}–{high:.0f}"


def _pct(x: float) -> str:
    return "—" if x != x else f"{x:+.1%}"


def _finite(errors: dict[Any, float]) -> list[float]:
    return [e for e in errors.values() if e == e] or [float("nan")]


def _fmt_rows(rows: pd.DataFrame, model: Any) -> pd.DataFrame:
    from boexplore.bo.acquisition.kg_memory import predict_row

    pred = [predict_row(model, r) for r in rows.to_dict("records")]
    return rows.assign(model_mb=pred, err=lambda r: r["model_mb"] / r["peak_mb"] - 1.0)


def paper_requests(config_path: Path = Path("config/paper.yaml")) -> pd.DataFrame:
    """Predicted peak and SLURM memory request of every qKG job of a config."""
    from boexplore.pipeline.cost import bo_job_cost, mem_request_mb
    from boexplore.workflow_config import is_excluded, load_config, problem_design

    config = load_config(config_path)
    out = []
    for label, spec in config["methods"].items():
        if not str(spec).startswith("kg"):
            continue
        for problem in config["problems"]:
            if is_excluded(config, problem, label):
                continue
            d, budget, _ = problem_design(config, problem)
            cost = bo_job_cost(config, problem, label, 1)
            out.append({"problem": problem, "method": label, "d": d, "budget": budget,
                        "peak_mb": cost.mem_mb, "request_mb": mem_request_mb(cost, config)})  # fmt: skip
    return pd.DataFrame(out)


def engine_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows at today's engine settings (64 fantasies; full steps and probes with one restart
    or one chunk of 8 raw samples): the largest of them per cell is a step's measured peak."""
    full = rows[rows["fantasies"] == PAPER["fantasies"]]
    keep = (
        ((full["kind"] == "step") & (full["batch"] == 1))
        | ((full["kind"] == "grad") & (full["batch"] == 1))
        | ((full["kind"] == "nograd") & (full["batch"] == 8))
    )
    return full[keep]


def memory_phrase(csv: Path, config_path: Path) -> str:
    """One sentence for docs/slurm.md: measured n = 500 peaks, model error, largest request."""
    from boexplore.bo.acquisition.kg_memory import KG_MEMORY

    rows = _fmt_rows(split_paths(read_rows(csv))[0], KG_MEMORY)
    today = engine_rows(rows)
    n_max = int(today["n"].max())
    top = today[today["n"] == n_max].groupby("dim")["peak_mb"].max()
    measured = ", ".join(f"{mb / 1024:.1f} GB at d = {d}" for d, mb in top.items())
    req = paper_requests(config_path)
    big = req.loc[req["request_mb"].idxmax()]
    return (f"a qKG step with 64 fantasies at n = {n_max} peaks at {measured} "
            f"(memory model within {rows['err'].abs().max():.0%} of every measurement); the "
            f"largest KG request is {big['request_mb'] / 1024:.1f} GB ({big['problem']}, "
            f"n = {big['budget']})")  # fmt: skip


def _cost_model_seconds(n: int, d: int) -> tuple[float, float]:
    """(fit, acquisition) CPU seconds the cost model predicts for one paper qKG step."""
    from boexplore.bo.methods import parse_method
    from boexplore.pipeline.cost import bo_iteration_seconds, load_calibration

    bo = {"num_restarts": PAPER["num_restarts"], "raw_samples": PAPER["raw_samples"]}
    spec = parse_method(f"kg(fantasies={PAPER['fantasies']})")
    return bo_iteration_seconds(spec, n, d, bo, load_calibration())


def render_markdown(rows: pd.DataFrame, config_path: Path = Path("config/paper.yaml")) -> str:
    """The measured tables, the model fit and its memory requests (docs/kg-memory.md)."""
    from boexplore.bo.acquisition.kg_memory import KG_MEMORY, fit_memory_model, kg_batch_limit

    rows, kept = split_paths(rows)
    fit = fit_memory_model(rows.to_dict("records"))
    rows = _fmt_rows(rows, KG_MEMORY)
    steps, probes = rows[rows["kind"] == "step"], rows[rows["kind"] != "step"]
    coef = ", ".join(f"{k} = {v:.4g}" for k, v in KG_MEMORY.to_dict().items())
    lines = [
        "# qKG step: peak memory and CPU at paper scale", "",
        "Generated by `python -m boexplore.bench.kg_memory --report docs/kg-memory.md` from "
        "`docs/kg-memory.csv` (see the module docstring). Every row is one fresh process: a "
        "GP fitted on a Sobol design of n points (seed 0), then one qKG step with the paper's "
        f"settings ({PAPER['fantasies']} fantasies, {PAPER['num_restarts']} restarts, "
        f"{PAPER['raw_samples']} raw samples, {PAPER['maxiter']} L-BFGS-B iterations), or one "
        "probe evaluation. CPU seconds by `time.process_time`, peak by `ru_maxrss`; model: "
        "`boexplore.bo.acquisition.kg_memory`.", "",
        "## One qKG step", "",
        "Cost model: the prediction of `cost/calibration.json` for the same step "
        "(`--calibrate` refits its qKG terms on these steps and the pilot's).", "",
        "Memory model: fitted on every row; *left out*: refitted without that step's cell "
        "(all its repeats), the out-of-sample error the SLURM request's 1.5× margin must hold.",
        "",
        "| problem | d | n | batch_limit | repeat | fit CPU s | acquisition CPU s | cost model "
        "fit / acquisition CPU s | peak MB | memory model MB | error | error, left out |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    loo = left_out_errors(rows)
    for r in steps.sort_values(["dim", "n", "batch", "rep"]).itertuples():
        fit_s, acq_s = _cost_model_seconds(int(r.n), int(r.dim))
        lines.append(f"| {r.problem} | {r.dim} | {r.n} | {r.batch} | {r.rep} | "
                     f"{r.fit_cpu_s:.1f} | {r.acq_cpu_s:.1f} | {fit_s:.1f} / {acq_s:.1f} | "
                     f"{r.peak_mb:.0f} | {r.model_mb:.0f} | {r.err:+.1%} | "
                     f"{_pct(loo[r.Index])} |")  # fmt: skip
    lines += _repeat_note(steps)
    batched = steps[steps["batch"] > 1]
    for (problem, d, n, b), many in batched.groupby(["problem", "dim", "n", "batch"]):
        one = steps[(steps["batch"] == 1) & (steps["dim"] == d) & (steps["n"] == n)]
        if len(one):
            runs = f" (mean of {len(many)} and {len(one)} runs)" if len(many) + len(one) > 2 else ""
            lines += ["", f"Restarts optimised {b} at a time ({problem}-{d}, n = {n}): "
                      f"{many['acq_cpu_s'].mean() / one['acq_cpu_s'].mean():.2f}× the CPU of "
                      f"one at a time{runs}, peak {_span(many['peak_mb'])} MB instead of "
                      f"{_span(one['peak_mb'])} MB."]  # fmt: skip
    lines += ["", "## Probes: one qKG evaluation of `batch` one-shot q-batches", "",
              "`grad`: forward + backward (one L-BFGS-B evaluation of `batch` restarts); "
              "`nograd`: forward only (one chunk of raw samples of the initial conditions).", "",
              "| kind | problem | d | n | fantasies | batch | CPU s | peak MB | model MB | "
              "model error |", "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in probes.sort_values(["dim", "n", "kind", "fantasies", "batch"]).itertuples(index=False):
        lines.append(f"| {r.kind} | {r.problem} | {r.dim} | {r.n} | {r.fantasies} | {r.batch} | "
                     f"{r.acq_cpu_s:.1f} | {r.peak_mb:.0f} | {r.model_mb:.0f} | {r.err:+.1%} |")  # fmt: skip
    same = all(abs(a - b) <= 1e-6 * max(1.0, abs(b))
               for a, b in zip(KG_MEMORY.to_dict().values(), fit.to_dict().values(), strict=True))  # fmt: skip
    lines += ["", "## Memory model", "",
              f"Coefficients (non-negative least squares: base and phases on the probes and "
              f"`fit_mb`, the three step terms on the full steps' relative error): {coef} "
              f"({'the engine constant equals this fit' if same else 'ENGINE CONSTANT DIFFERS FROM THIS FIT'}). "
              f"Largest error: {probes['err'].abs().max():.1%} on the probes"
              + (f", {steps['err'].abs().max():.1%} on the full steps (mean "
                 f"{steps['err'].mean():+.1%}); with its cell left out of the fit a step is "
                 f"predicted between {min(_finite(loo)):+.1%} and {max(_finite(loo)):+.1%} "
                 "(the 1.5× request holds a prediction down to −33 %; a cell that alone "
                 "measures its term, —, is not predicted out of sample)."
                 if len(steps) else "; no full step measured."),
              "",
              "Restarts optimised together (`batch_limit`) under a memory cap "
              "(`bo.extra.kg_memory_cap_mb`; 64 fantasies, q = 1, 10 restarts):", "",
              "| d | n | 2,000 MB | 4,000 MB | 8,000 MB | 16,000 MB |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    for d in (6, 60):
        for n in (100, 300, 500):
            caps = [kg_batch_limit(n, d, 1, PAPER["fantasies"], PAPER["num_restarts"], c)
                    for c in (2000, 4000, 8000, 16000)]  # fmt: skip
            lines.append(f"| {d} | {n} | " + " | ".join(map(str, caps)) + " |")
    lines += ["", "## Engine settings", "", *ENGINE_NOTES, _phase_note(probes)]
    req = paper_requests(config_path)
    if len(req):
        lines += ["", f"## Memory requests of the qKG jobs of `config/{config_path.name}`", "",
                  "Predicted peak of the job's last step (n = budget) and the SLURM request "
                  "(1.5× the peak, `pipeline.cost.mem_request_mb`). The model's d-terms (the "
                  "gradient phase and the raw-sample draw, which grows linearly in d) are "
                  "fitted on d = 6 and 60; at larger d they are extrapolated.", "",
                  "| problem | d | budget | predicted peak MB | request MB |",
                  "|---|---|---|---|---|"]  # fmt: skip
        for r in req.itertuples(index=False):
            lines.append(f"| {r.problem} | {r.d} | {r.budget} | {r.peak_mb:.0f} | "
                         f"{r.request_mb} |")  # fmt: skip
    return "\n".join(lines + kept_lines(steps, kept)) + "\n"


def kept_lines(plain_steps: pd.DataFrame, kept: pd.DataFrame) -> list[str]:
    """The section on steps with ``bo.kg_fantasy_cache`` beside BoTorch's at the same cell."""
    kept = kept[(kept["kind"] == "step") & (kept["batch"] == 1)]
    if not len(kept):
        return []
    cell = ["problem", "dim", "n"]
    plain = plain_steps[plain_steps["batch"] == 1].groupby(cell)[["acq_cpu_s", "peak_mb"]].mean()
    lines = ["", "## With `bo.kg_fantasy_cache`", "",
             "The same step with the fantasy model's mean cache kept "
             "(`bo/acquisition/fantasy_cache.py`: GPyTorch's bordered solve instead of one "
             "Cholesky factorisation of the conditioned kernel matrix per fantasy at every "
             "evaluation; values and gradients equal to rounding). BoTorch's step: the mean of "
             "the rows above at the same cell. CPU is process CPU time, and the two paths' rows "
             "may come from different days and machine loads; a same-load paired comparison "
             "(n = 20–80) is in [qKG fantasy cache: paired speed](kg-fantasy-cache-speed.md).",
             "",
             "| problem | d | n | CPU s (kept) | CPU s (BoTorch) | speed-up | peak MB (kept) | "
             "peak MB (BoTorch) |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for (problem, dim, n), g in kept.groupby(cell):
        cpu, peak = float(g["acq_cpu_s"].mean()), float(g["peak_mb"].max())
        if (problem, dim, n) in plain.index:
            ref = plain.loc[(problem, dim, n)]
            ref_cpu, ref_peak = float(ref["acq_cpu_s"]), float(ref["peak_mb"])
            other = f"{ref_cpu:.1f} | {ref_cpu / cpu:.1f}× | {peak:.0f} | {ref_peak:.0f}"
        else:
            other = f"— | — | {peak:.0f} | —"
        lines.append(f"| {problem} | {dim} | {n} | {cpu:.1f} | {other} |")
    return lines


def _bench_steps(rows: pd.DataFrame) -> pd.DataFrame:
    """The full steps (restarts one at a time) of ``rows`` as rows of a ``bench.kg`` table."""
    steps = rows[(rows["kind"] == "step") & (rows["batch"] == 1)]
    new = pd.DataFrame({"problem": steps["problem"], "dim": steps["dim"], "n": steps["n"],
                        "seed": steps["seed"], "opt_seed": steps["seed"], "column": "current",
                        "fantasies": steps["fantasies"], "num_restarts": steps["num_restarts"],
                        "raw_samples": steps["raw_samples"], "cpu_s": steps["acq_cpu_s"]})  # fmt: skip
    return new


def cpu_calibration(rows: pd.DataFrame, speed_csv: Path = Path("docs/kg-speed.csv")) -> dict:
    """The cost model's qKG CPU terms refitted on the pilot's steps (``docs/kg-speed.csv``,
    n = 20-80) plus the full steps here (n = 100-500, restarts one at a time)."""
    from boexplore.bench.kg import cost_fit

    speed = pd.read_csv(speed_csv)
    return cost_fit(pd.concat([speed, _bench_steps(split_paths(rows)[0])], ignore_index=True),
                    curvature=True)  # fmt: skip


def cpu_calibration_kept(rows: pd.DataFrame, shard_csv: Path | None = None) -> dict:
    """The cost model's terms for qKG with ``bo.kg_fantasy_cache``: the kept-path steps here
    (n = 100-500) and, if given, a ``bench.kg`` table's ``fantasy cache`` column (n = 20-80);
    the share that does not scale with the fantasies is not measured on this path (nan)."""
    from boexplore.bench.kg import FANTASY_CACHE, cost_fit

    parts = [_bench_steps(split_paths(rows)[1])]
    if shard_csv is not None:
        shard = pd.read_csv(shard_csv)
        parts.append(shard[shard["column"] == FANTASY_CACHE].assign(column="current"))
    return cost_fit(pd.concat(parts, ignore_index=True), curvature=True)


def write_calibration(fit: dict, path: Path) -> None:
    """Put the qKG CPU terms of ``fit`` into the cost calibration file at ``path``."""
    cal = json.loads(path.read_text())
    bo = cal["bo"]
    bo["acq_scale"]["kg"] = round(fit["a"], 4)
    bo["acq_shape_by_method"]["kg"] = {"b": round(fit["b"], 4), "b2": round(fit.get("b2", 0.0), 4),
                                       "c": round(fit["c"], 4), "e": 0.0}  # fmt: skip
    bo["kg_fantasy_fixed"] = round(fit["fantasy_fixed"], 3)
    bo["kg_note"] = (
        "kg: python -m boexplore.bench.kg_memory --calibrate: qKG steps with today's settings "
        "from docs/kg-speed.csv (d = 2-180, n = 20-80) and docs/kg-memory.csv (d = 6 and 60, "
        "n = 100-500), one mean per (problem, d, n) cell, fit a, b, b2 (curvature in log n), c "
        "at the reference effort; the share of a step that does not scale with the fantasies "
        "comes from the kg-speed columns with fewer fantasies."
    )
    mem = "kg: peak memory from bo.acquisition.kg_memory (docs/kg-memory.md), not from 'mem'"
    bo["mem_note"] = mem
    atomic_write_text(json.dumps(cal, indent=1) + "\n", path)


def write_kept_calibration(fit: dict, path: Path) -> None:
    """Put the kept-path terms of ``fit`` into the calibration file under ``kg_cache``, the key
    the cost model reads for qKG jobs with ``bo.kg_fantasy_cache`` (``cost/cpu.py``)."""
    cal = json.loads(path.read_text())
    bo = cal["bo"]
    bo["acq_scale"]["kg_cache"] = round(fit["a"], 4)
    bo["acq_shape_by_method"]["kg_cache"] = {"b": round(fit["b"], 4),
                                             "b2": round(fit.get("b2", 0.0), 4),
                                             "c": round(fit["c"], 4), "e": 0.0}  # fmt: skip
    bo["kg_cache_note"] = (
        "kg_cache: python -m boexplore.bench.kg_memory --calibrate-kept: qKG steps with "
        "bo.kg_fantasy_cache from docs/kg-memory.csv (fantasy_cache = 1; d = 6 and 60, n = "
        "100-500) and the 'fantasy cache' column of docs/kg-fantasy-cache.csv (n = 20-80), fit "
        "as kg; the fantasy-independent share is kg's."
    )
    atomic_write_text(json.dumps(cal, indent=1) + "\n", path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/kg-memory.csv"))
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--kinds", nargs="+", default=["grad", "nograd", "step"])
    parser.add_argument("--report", type=Path, default=None,
                        help="write this markdown from --out and run nothing")  # fmt: skip
    parser.add_argument("--calibrate", type=Path, default=None, metavar="JSON",
                        help="refit the cost model's qKG CPU terms into this calibration file")  # fmt: skip
    parser.add_argument("--calibrate-kept", type=Path, default=None, metavar="JSON",
                        help="refit the terms of qKG with bo.kg_fantasy_cache into this file")  # fmt: skip
    parser.add_argument("--kept-shard", type=Path, default=None, metavar="CSV",
                        help="with --calibrate-kept: a bench.kg table with a 'fantasy cache' column")  # fmt: skip
    parser.add_argument("--rep", type=int, default=0,
                        help="measure the cells again as this repeat (0: the first)")  # fmt: skip
    parser.add_argument("--fantasy-cache", action="store_true",
                        help="measure with bo.kg_fantasy_cache (rows carry fantasy_cache = 1)")  # fmt: skip
    parser.add_argument("--one", type=json.loads, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one)))
        return 0
    if args.calibrate is not None:
        write_calibration(cpu_calibration(read_rows(args.out)), args.calibrate)
    if args.calibrate_kept is not None:
        fit = cpu_calibration_kept(read_all_rows(args.out), args.kept_shard)
        write_kept_calibration(fit, args.calibrate_kept)
    if args.report is not None:
        atomic_write_text(render_markdown(read_all_rows(args.out)), args.report)
    if args.calibrate is not None or args.calibrate_kept is not None or args.report is not None:
        return 0
    rows = read_all_rows(args.out) if args.out.exists() else pd.DataFrame(columns=KEY)
    done = {_key(r) for _, r in rows.iterrows()}
    for spec in grid(args.sizes, rep=args.rep, fantasy_cache=args.fantasy_cache):
        if spec["kind"] not in args.kinds or _key(spec) in done:
            continue
        row = run_one(spec)
        rows = pd.concat([rows, pd.DataFrame([row])], ignore_index=True) if len(rows) else (
            pd.DataFrame([row]))  # fmt: skip
        atomic_write_text(rows.to_csv(index=False), args.out)
        print(f"{row['kind']} {row['problem']}-{row['dim']} n={row['n']} F={row['fantasies']} "
              f"b={row['batch']}: fit {row['fit_cpu_s']:.1f} s, acq {row['acq_cpu_s']:.1f} s, "
              f"peak {row['peak_mb']:.0f} MB", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
