"""Model-free search on a combinatorial problem's domain: random search and simulated annealing.

Both work on raw domain values (``CombinatorialProblem.sample_raw`` / ``evaluate_raw``) and
return the points in evaluation order. Simulated annealing is the strong exploiter of the
method set: it moves to a neighbour (one finite variable set to another level, or one
continuous variable moved by a Gaussian step of 0.1 of its range) and accepts a worse value with
probability exp(delta / T), T falling geometrically from ``t0`` x (spread of the starting
values) to ``t_end`` x that over the budget. Its schedule is our choice.
"""

from __future__ import annotations

import numpy as np

from boexplore.problems.combinatorial.base import CombinatorialProblem


def neighbour(problem: CombinatorialProblem, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One random neighbour of raw point ``x``: one variable changed."""
    y = x.copy()
    j = int(rng.integers(problem.dim))
    k = problem.levels[j]
    if k is not None:
        y[j] = (x[j] + rng.integers(1, k)) % k  # another level, uniformly
    else:
        lo, hi = problem.bounds[:, j]
        y[j] = np.clip(x[j] + 0.1 * (hi - lo) * rng.standard_normal(), lo, hi)
    return y


def simulated_annealing(
    problem: CombinatorialProblem,
    X0: np.ndarray,
    y0: np.ndarray,
    n_steps: int,
    rng: np.random.Generator,
    t0: float = 0.5,
    t_end: float = 1e-3,
) -> tuple[np.ndarray, np.ndarray]:
    """``n_steps`` annealing moves from the best of (X0, y0); returns the new points and values."""
    spread = float(np.std(y0)) if len(y0) > 1 and np.std(y0) > 0 else 1.0
    temp0 = t0 * spread
    i = int(np.argmax(y0))
    current, f_current = X0[i].copy(), float(y0[i])
    X, Y = np.empty((n_steps, problem.dim)), np.empty(n_steps)
    for step in range(n_steps):
        temp = temp0 * t_end ** (step / max(n_steps - 1, 1))
        cand = neighbour(problem, current, rng)
        f_cand = float(problem.evaluate_raw(cand[None, :])[0])
        X[step], Y[step] = cand, f_cand
        delta = f_cand - f_current
        if delta >= 0 or rng.random() < np.exp(delta / max(temp, 1e-300)):
            current, f_current = cand, f_cand
    return X, Y


def annealing_best(problem: CombinatorialProblem, n_runs: int = 10, n_steps: int = 20_000) -> float:
    """Best value of ``n_runs`` annealing runs of ``n_steps`` moves, each from the best of 10
    uniform points (run r draws from ``default_rng([r, 99])``): the ``best_known`` of the
    problems without a proven optimum."""
    best = -np.inf
    for r in range(n_runs):
        rng = np.random.default_rng([r, 99])
        X0 = problem.sample_raw(rng, 10)
        y0 = problem.evaluate_raw(X0)
        _, y = simulated_annealing(problem, X0, y0, n_steps, rng)
        best = max(best, float(y0.max()), float(y.max()))
    return best
