"""E4: LFBO-style policies on continuous problems (sanity runs against GP-LogEI).

Each round a fresh scrambled Sobol candidate set of ``n_candidates`` points is
scored by the trained classifier / regressor and the argmax is evaluated (the
official LFBO code does the same with 5000 uniform points). The function-space
(``func``) regulariser needs a finite domain, so on continuous problems the
randomized policies use the anchored L2 regulariser (documented substitution).
Seeds are batched exactly as in :mod:`boexplore.parametric.loop`.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pandas as pd
import torch
from scipy.stats import qmc

from boexplore.parametric.lfbo import lfbo_weights
from boexplore.parametric.mlp import MLPSpec, forward, init_params
from boexplore.parametric.policies import PolicySpec
from boexplore.parametric.train import RoundObjective, train

DT = torch.float32


def _candidates(dim: int, n: int, seed: int, t: int) -> np.ndarray:
    sobol = qmc.Sobol(d=dim, scramble=True, seed=np.random.default_rng([seed, 31, t]))
    return sobol.random_base2(int(np.ceil(np.log2(n))))[:n]


def run_continuous(
    problem,
    policy: PolicySpec,
    seeds: list[int],
    budget: int,
    n_init: int = 10,
    n_candidates: int = 2048,
    method: str = "",
) -> pd.DataFrame:
    """Trace (one row per seed and evaluation) of an NN / random policy on a continuous problem."""
    if budget < n_init or n_init < 1:
        raise ValueError(f"run_continuous: need 1 <= n_init <= budget, got {n_init}, {budget}")
    if policy.kind not in ("nn", "random"):
        raise ValueError(
            f"run_continuous: policy kind {policy.kind!r} not supported (use nn or random)"
        )
    if policy.reg == "func":
        policy = replace(policy, reg="anchor")
    torch.set_num_threads(1)
    d, B = problem.dim, len(seeds)
    init_rng = [np.random.default_rng([s, 12]) for s in seeds]
    pol_rng = [np.random.default_rng([s, 13]) for s in seeds]
    mlp = MLPSpec(d, policy.width, policy.depth, policy.activation, policy.init_scale)
    X = np.zeros((B, 0, d))
    Y = np.zeros((B, 0))
    theta0 = prev = None
    rows = []
    for t in range(budget):
        start_time = time.perf_counter()
        if t < n_init or policy.kind == "random":
            rngs = init_rng if t < n_init else pol_rng
            new = np.stack([r.random(d) for r in rngs])
        else:
            cands = np.stack([_candidates(d, n_candidates, s, t) for s in seeds])
            Xb = torch.as_tensor(
                X, dtype=DT
            )  # anchor / no regulariser: training needs only the data
            if theta0 is None or policy.redraw:
                theta0 = [p.to(DT) for p in init_params(mlp, seeds, stream=t)]
            start = prev if (policy.warm_start and prev is not None) else theta0
            idx = torch.arange(t).expand(B, t)
            if policy.loss == "lfbo":
                w = [
                    lfbo_weights(Y[b], policy.gamma, policy.utility, policy.balance)
                    for b in range(B)
                ]
                kw = {
                    "pos_w": torch.as_tensor(np.stack([a for a, _ in w]), dtype=DT),
                    "neg_w": torch.as_tensor(np.stack([c for _, c in w]), dtype=DT),
                }
            else:
                kw = {"y": torch.as_tensor(Y, dtype=DT)}
            reg = policy.reg if policy.lam > 0 else "none"
            obj = RoundObjective(
                idx=idx,
                loss=policy.loss,
                reg=reg,
                lam=policy.lam,
                theta0=theta0,
                anchor_scale=policy.init_scale,
                **kw,
            )
            prev, _ = train(
                start, lambda p, Xb=Xb: forward(p, Xb, mlp.activation), obj, policy.steps, policy.lr
            )
            with torch.no_grad():
                scores = forward(prev, torch.as_tensor(cands, dtype=DT), mlp.activation).numpy()
            new = np.stack([cands[b, int(np.argmax(scores[b]))] for b in range(B)])
        y_new = problem.evaluate(new)
        X = np.concatenate([X, new[:, None, :]], axis=1)
        Y = np.concatenate([Y, y_new[:, None]], axis=1)
        elapsed = (time.perf_counter() - start_time) / B
        for b in range(B):
            rows.append(
                {
                    "seed": seeds[b],
                    "eval_index": t,
                    "is_initial": t < n_init,
                    "y": float(y_new[b]),
                    "fit_seconds": elapsed,
                    **{f"x_{j}": float(new[b, j]) for j in range(d)},
                }
            )
    return finish_trace(pd.DataFrame(rows), problem, method or policy.kind)


def finish_trace(trace: pd.DataFrame, problem, method: str) -> pd.DataFrame:
    """Add problem/method labels, best-so-far and simple regret (optimum known) columns."""
    trace = trace.sort_values(["seed", "eval_index"], kind="stable").reset_index(drop=True)
    trace.insert(0, "problem", problem.name)
    trace.insert(1, "dim", problem.dim)
    trace.insert(2, "method", method)
    trace["best_so_far"] = trace.groupby("seed")["y"].cummax()
    opt = problem.optimum_value
    trace["regret"] = (opt - trace["best_so_far"]) if opt is not None else np.nan
    return trace


def run_gp_logei(
    problem, seeds: list[int], budget: int, n_init: int = 10, method: str = "gp_logei"
) -> pd.DataFrame:
    """GP-LogEI baseline through the project's BO loop (``boexplore.bo.run_bo``)."""
    from boexplore.bo import run_bo

    frames = []
    for s in seeds:
        tr = run_bo(problem, "logei", int(s), budget, n_init, method_label=method)
        frames.append(
            tr[
                ["seed", "eval_index", "is_initial", "y", "fit_seconds"]
                + [f"x_{j}" for j in range(problem.dim)]
            ]
        )
    return finish_trace(pd.concat(frames, ignore_index=True), problem, method)
