"""One run of a method on a combinatorial problem, as a trace (our extension).

The trace has the layout of the continuous engine's (docs/interfaces.md, "BO traces"), with
``x_0 .. x_{d-1}`` holding **raw domain values** (level codes, continuous values in their
range) instead of unit-cube coordinates, so ``metrics.domain.score_domain_trace`` scores it on
``problem.domain_spec``. One point per iteration (q = 1). The initial design, ``n_init``
uniform points, depends on the seed and the domain only, so every method of a seed starts from
the same points (random search continues the same stream).
"""

from __future__ import annotations

import time
import zlib

import numpy as np

from boexplore.discrete.gp import propose
from boexplore.discrete.methods import parse_discrete_method
from boexplore.discrete.search import simulated_annealing
from boexplore.problems.combinatorial.base import CombinatorialProblem


def design_rng(problem: CombinatorialProblem, seed: int) -> np.random.Generator:
    """The initial design's stream: one per (seed, domain)."""
    return np.random.default_rng([int(seed), 55, zlib.crc32(problem.domain_spec.encode())])


def run_discrete(
    problem: CombinatorialProblem,
    method_spec: str,
    seed: int,
    budget: int,
    n_init: int,
    *,
    method_label: str | None = None,
    problem_label: str | None = None,
    num_restarts: int = 4,
    raw_samples: int = 256,
):
    """Run ``method_spec`` for ``budget`` evaluations (``n_init`` of them the initial design)."""
    import pandas as pd

    if not isinstance(problem, CombinatorialProblem):
        raise TypeError(f"{problem.name}: run_discrete needs a combinatorial problem")
    if not 1 <= n_init <= budget:
        raise ValueError(f"need 1 <= n_init <= budget, got n_init={n_init}, budget={budget}")
    method = parse_discrete_method(method_spec)
    rng = design_rng(problem, seed)
    X = problem.sample_raw(rng, n_init)
    y = problem.evaluate_raw(X)
    n = budget - n_init
    it = np.zeros(budget, dtype=int)
    fit_s, fallback = np.zeros(budget), [""] * budget
    if method.base == "random":
        X = np.vstack([X, problem.sample_raw(rng, n)])
        y = np.concatenate([y, problem.evaluate_raw(X[n_init:])]) if n else y
        it[n_init:] = np.arange(1, n + 1)
    elif method.base == "sa":
        sa_rng = np.random.default_rng([int(seed), 56])
        Xs, ys = simulated_annealing(problem, X, y, n, sa_rng, **method.params)
        X, y = np.vstack([X, Xs]), np.concatenate([y, ys])
        it[n_init:] = np.arange(1, n + 1)
    else:
        prop_rng = np.random.default_rng([int(seed), 57])
        for i in range(n_init, budget):
            t = time.perf_counter()
            x, note = propose(
                problem, method, X, y, prop_rng, num_restarts=num_restarts, raw_samples=raw_samples
            )
            fit_s[i] = time.perf_counter() - t
            X = np.vstack([X, x[None, :]])
            y = np.concatenate([y, problem.evaluate_raw(x[None, :])])
            it[i], fallback[i] = i - n_init + 1, note
    best = np.maximum.accumulate(y)
    opt = problem.optimum_value
    out = {
        "problem": problem_label or problem.name,
        "dim": problem.dim,
        "method": method_label or method_spec,
        "method_spec": method_spec,
        "seed": int(seed),
        "eval_index": np.arange(budget),
        "iteration": it,
        "batch_index": 0,
        "is_initial": np.arange(budget) < n_init,
        **{f"x_{j}": X[:, j] for j in range(problem.dim)},
        "y": y,
        "best_so_far": best,
        "regret": opt - best if opt is not None else np.full(budget, np.nan),
        "fit_seconds": fit_s,  # fit + acquisition of the GP methods, in one timer
        "acq_seconds": 0.0,
        "fallback": fallback,
        "tr_length": np.nan,
        "raasp_n_perturbed": np.nan,
    }
    return pd.DataFrame(out)
