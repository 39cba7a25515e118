"""One profiled qKG step and its csv rows: the config's settings, the state, the per-tree costs.

The one place that runs the step: it joins the profilers, the rule and the flops into a row each."""

from __future__ import annotations

import copy
import re
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boexplore.bench import kg
from boexplore.bench.kg import _kg, _state, kg_step
from boexplore.bench.step_profile.flops import count_flops, model_flops
from boexplore.bench.step_profile.profilers import (
    Evaluations,
    forward_key,
    profile_call,
    record_evaluations,
    sample_call,
)
from boexplore.bench.step_profile.rules import CATEGORIES, PHASES, Context, Key, attribute

DEFAULT_CONFIG = Path("config/paper.yaml")
#: L-BFGS-B iterations per restart of bench.kg's step (a config's qKG runs must use as many).
STEP_MAXITER = kg.MAXITER
#: Repetitions of each per-evaluation timing (the median is reported).
EVAL_REPEATS = 3


def paper_settings(config: str | Path = DEFAULT_CONFIG, method: str = "kg") -> dict[str, int]:
    """The qKG step's settings in a config: fantasies from ``methods.<method>``, restarts, raw
    samples and L-BFGS-B iterations (``maxiter``) from ``bo`` with ``bo.by_method.<method>`` on
    top.

    Refuses a config whose qKG runs differ from the step :func:`~boexplore.bench.kg.kg_step`
    takes in a way that changes the step (iterations, restart batching, warm start, device)."""
    from boexplore.bo.methods import parse_method
    from boexplore.bo.settings import BOSettings
    from boexplore.workflow_config import load_config, method_bo_settings

    cfg = load_config(config)
    spec = parse_method(cfg["methods"][method])
    if spec.base != "kg" or spec.q != 1 or spec.raasp or spec.trust_region:
        raise ValueError(f"methods.{method} is {cfg['methods'][method]!r}, not a plain qKG")
    bo = method_bo_settings(cfg, method)
    extra = dict(bo.pop("extra", {}) or {})
    bo.pop("torch_threads", None)
    settings = BOSettings.from_kwargs(**{**bo, **extra})
    differs = {k: v for k, v in (("acq_maxiter", STEP_MAXITER), ("kg_memory_cap_mb", None),
                                 ("kg_warm_start", False), ("device", "cpu"))
               if getattr(settings, k) != v}  # fmt: skip
    if differs:
        got = {k: getattr(settings, k) for k in differs}
        raise ValueError(f"{config}: the qKG runs use {got}; bench.kg's step uses {differs}")
    return {"fantasies": int(spec.params["fantasies"]), "num_restarts": settings.num_restarts,
            "raw_samples": settings.raw_samples, "maxiter": settings.acq_maxiter,
            "fantasy_cache": int(settings.kg_fantasy_cache)}  # fmt: skip


def resolve_problem(text: str, config: str | Path = DEFAULT_CONFIG) -> tuple[str, int]:
    """``(name, dim)`` of a problem: a label of the config's ``problems``, ``NAME:DIM`` or
    ``NAMEDIM`` (e.g. ``ackley60``)."""
    from boexplore.problems import get_problem
    from boexplore.workflow_config import read_yaml

    problems = (read_yaml(config) or {}).get("problems", {}) if Path(config).exists() else {}
    if text in problems:
        return str(problems[text]["name"]), int(problems[text]["dim"])
    name, sep, dim = text.partition(":")
    if not sep:
        found = re.fullmatch(r"(.*?)(\d+)", text)
        if found is None:
            raise ValueError(f"problem {text!r}: a config label, NAME:DIM or NAMEDIM")
        name, dim = found.group(1), found.group(2)
    get_problem(name, int(dim))  # refuses an unknown problem
    return name, int(dim)


def evaluation_costs(model: Any, bounds: Any, fantasies: int, seed: int,
                     repeats: int = EVAL_REPEATS, fantasy_cache: bool = False
                     ) -> dict[str, float]:  # fmt: skip
    """CPU seconds and counted flops of one tree's evaluation with and without its gradient,
    and the CPU rate of one dense product of the dominant shape (package docstring)."""
    import torch

    from boexplore.bo.acquisition.kg_memory import INIT_BATCH_LIMIT

    acqf = _kg(model, fantasies, seed, fantasy_cache)
    d = int(bounds.shape[-1])
    gen = torch.Generator().manual_seed(seed)
    lo, hi = bounds[0], bounds[1]

    def trees(k: int) -> Any:
        u = torch.rand(k, 1 + fantasies, d, generator=gen, dtype=bounds.dtype)
        return lo + (hi - lo) * u

    X_grad, X_raw = trees(1), trees(INIT_BATCH_LIMIT)

    def grad_eval() -> None:
        X = X_grad.clone().requires_grad_(True)
        torch.autograd.grad(acqf(X).sum(), X)

    def raw_eval() -> None:
        with torch.no_grad():
            acqf(X_raw)

    def cpu(fn: Callable[[], Any]) -> float:
        return float(np.median([_cpu_once(fn) for _ in range(repeats)]))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grad_eval()  # the model's caches, as in the step
        grad_s, raw_s = cpu(grad_eval), cpu(raw_eval) / INIT_BATCH_LIMIT
        grad_flops, _, unknown_g = count_flops(grad_eval)
        raw_flops, _, unknown_r = count_flops(raw_eval)
    m = int(model.train_inputs[0].shape[-2]) + 1
    A = torch.rand(m, m, dtype=torch.float64, generator=gen)
    B = torch.rand(m, m * max(fantasies, 1), dtype=torch.float64, generator=gen)
    gemm_s = min(_cpu_once(lambda: A @ B) for _ in range(repeats))
    gemm_flops = 2.0 * m * m * m * max(fantasies, 1)
    return {"eval_grad_cpu_s": grad_s, "eval_raw_cpu_s": raw_s,
            "flops_grad_counted": grad_flops, "flops_raw_counted": raw_flops / INIT_BATCH_LIMIT,
            "gemm_gflops": gemm_flops / max(gemm_s, 1e-9) / 1e9,
            "uncounted_ops": " ".join(sorted(unknown_g | unknown_r))}  # fmt: skip


def _cpu_once(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _versions() -> dict[str, str]:
    import botorch
    import gpytorch
    import linear_operator
    import scipy
    import torch

    return {"torch": torch.__version__, "botorch": botorch.__version__,
            "gpytorch": gpytorch.__version__, "linear_operator": linear_operator.__version__,
            "scipy": scipy.__version__}  # fmt: skip


#: Profilers of a step: cProfile with the call-graph walk, or the stack sampler.
PROFILERS = ("cprofile", "sample")


@dataclass
class StepProfile:
    """One profiled qKG step: its point, CPU, evaluations and attribution."""

    X: Any
    cpu_s: float
    evaluations: Evaluations
    calls: int  # qKnowledgeGradient.forward calls
    seconds: dict[Context, float]  # by (category, phase)
    stats: dict[Key, tuple] = field(default_factory=dict)  # cProfile's, when it ran

    @property
    def total_s(self) -> float:
        """The attributed seconds (what the shares divide): cProfile's total self time, or
        the sampled CPU."""
        return float(sum(self.seconds.values()))


def profile_step(model: Any, bounds: Any, settings: Mapping[str, int], seed: int,
                 profiler: str = "cprofile") -> StepProfile:  # fmt: skip
    """:func:`~boexplore.bench.kg.kg_step` under ``profiler`` with its time attributed.

    cProfile: its qKG calls are counted twice (the profile's call count and a wrapper, which
    must agree). The sampler: by the wrapper."""
    step = lambda: kg_step(model, bounds, settings, seed)  # noqa: E731
    with record_evaluations() as seen:
        if profiler == "cprofile":
            (X, _), stats, cpu = profile_call(step)
        elif profiler == "sample":
            (X, _), seconds, cpu = sample_call(step)
        else:
            raise ValueError(f"profiler {profiler!r}: one of {PROFILERS}")
    if profiler == "sample":
        return StepProfile(X, cpu, seen, seen.calls, seconds)
    fkey = forward_key()
    calls = int(stats[fkey][1]) if fkey in stats else 0
    if calls != seen.calls:
        raise RuntimeError(
            f"the profile counts {calls} qKG forward calls, the wrapper {seen.calls}"
        )
    return StepProfile(X, cpu, seen, calls, attribute(stats), stats)


def profile_state(problem: str, dim: int, n: int, seed: int, settings: Mapping[str, int],
                  baseline: bool = True, profilers: Sequence[str] = ("cprofile",)
                  ) -> list[dict[str, Any]]:  # fmt: skip
    """One row per profiler: the plain step's CPU, the profiled step's seconds by category
    and phase, its evaluations, and the per-evaluation CPU and flops (package docstring)."""
    model, bounds = _state(problem, dim, n, seed)
    fresh = copy.deepcopy(model)  # every run starts from the fitted GP with empty caches
    X_plain, step_cpu = None, float("nan")
    if baseline:
        X_plain, step_cpu = kg_step(copy.deepcopy(fresh), bounds, settings, seed)
    F, q = int(settings["fantasies"]), 1
    profiles = {p: profile_step(copy.deepcopy(fresh), bounds, settings, seed, p) for p in profilers}
    kept = bool(settings.get("fantasy_cache", 0))
    costs = evaluation_costs(fresh, bounds, F, seed, fantasy_cache=kept)
    grad_model = model_flops(n, F, dim, q, True, kept)
    raw_model = model_flops(n, F, dim, q, False, kept)
    return [_row(problem, dim, n, seed, settings, p, prof, step_cpu, X_plain, costs, grad_model,
                 raw_model) for p, prof in profiles.items()]  # fmt: skip


def _row(problem: str, dim: int, n: int, seed: int, settings: Mapping[str, int], profiler: str,
         prof: StepProfile, step_cpu: float, X_plain: Any, costs: Mapping[str, Any],
         grad_model: Mapping[str, float], raw_model: Mapping[str, float]) -> dict[str, Any]:  # fmt: skip
    seconds, seen = prof.seconds, prof.evaluations
    row: dict[str, Any] = {
        "problem": problem, "dim": dim, "n": n, "seed": seed, "profiler": profiler,
        **{k: int(settings[k]) for k in ("fantasies", "num_restarts", "raw_samples")},
        "fantasy_cache": int(settings.get("fantasy_cache", 0)), "maxiter": kg.MAXITER, "step_cpu_s": step_cpu, "profiled_cpu_s": prof.cpu_s,
        "profiled_total_s": prof.total_s,
        # the profiled step chose the plain step's point: the same computation was profiled
        "same_point": None if X_plain is None else bool((X_plain == prof.X).all()),
    }  # fmt: skip
    for cat, slug in CATEGORIES.items():
        row[f"s_{slug}"] = sum(v for (c, _), v in seconds.items() if c == cat)
    for phase, pslug in PHASES.items():
        row[f"s_phase_{pslug}"] = sum(v for (_, p), v in seconds.items() if p == phase)
        for cat, slug in CATEGORIES.items():
            row[f"s_{slug}_{pslug}"] = seconds.get((cat, phase), 0.0)
    row |= {
        "acqf_calls": prof.calls,
        "trees_grad": seen.count(True),
        "trees_raw": seen.count(False),
    }
    row |= dict(costs) | {
        "flops_grad_model": sum(grad_model.values()),
        "flops_raw_model": sum(raw_model.values()),
        "flops_grad_mean_cache": grad_model["mean cache"],
        "gflops_grad": costs["flops_grad_counted"] / max(costs["eval_grad_cpu_s"], 1e-9) / 1e9,
        "gflops_raw": costs["flops_raw_counted"] / max(costs["eval_raw_cpu_s"], 1e-9) / 1e9,
    }  # fmt: skip
    row["evals_cpu_s"] = (row["trees_grad"] * costs["eval_grad_cpu_s"]
                          + row["trees_raw"] * costs["eval_raw_cpu_s"])  # fmt: skip
    return row | _versions()
