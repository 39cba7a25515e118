"""The GP of BO on binary / categorical / mixed domains and its proposals (our extension).

Model: BoTorch's ``MixedSingleTaskGP``. Its inputs are the binary / categorical level codes
(``cat_dims``, compared by BoTorch's ``CategoricalKernel``, exp(-mean over variables of
mismatch / lengthscale): a Hamming-distance kernel with one lengthscale per variable) and the
continuous variables scaled to [0, 1] (a Matern-5/2 kernel), combined by BoTorch's sum-and-product
rule; y is standardised by the model's outcome transform, the hyperparameters fit by maximum
marginal likelihood (``fit_gpytorch_mll``).

Acquisition: LogEI, PI, UCB(beta) and the posterior mean (greedy) are maximised by BoTorch's
``optimize_acqf_mixed_alternating`` (local search over one-variable changes of the codes,
alternating with L-BFGS on the continuous block, from raw-sample starts). Thompson sampling
draws one joint posterior sample on a candidate set (uniform points plus every one-variable
neighbour of the incumbent) and takes its argmax: no closed-form sample path exists for the
categorical kernel. A proposal that repeats an evaluated point (common for greedy and small
beta: the GP is noiseless-ish there) is replaced by the best not-yet-evaluated candidate of the
same acquisition on that set, and the row's ``fallback`` says ``duplicate``.
"""

from __future__ import annotations

import warnings

import numpy as np

from boexplore.discrete.methods import DiscreteMethod
from boexplore.problems.combinatorial.base import CombinatorialProblem

#: Size of the uniform part of the candidate set (TS, duplicate fallback).
N_CANDIDATES = 512


def encode(problem: CombinatorialProblem, X_raw: np.ndarray) -> np.ndarray:
    """GP inputs: codes on finite columns, [0, 1]-scaled values on continuous ones."""
    lo, hi = problem.bounds
    cont = problem.continuous_columns
    Z = np.array(X_raw, dtype=float)
    Z[:, cont] = (Z[:, cont] - lo[cont]) / (hi[cont] - lo[cont])
    return Z


def decode(problem: CombinatorialProblem, Z: np.ndarray) -> np.ndarray:
    """Raw values of GP inputs (codes rounded, continuous values mapped back and clipped)."""
    lo, hi = problem.bounds
    cont, fin = problem.continuous_columns, problem.finite_columns
    X = np.array(Z, dtype=float)
    X[:, fin] = np.clip(np.rint(X[:, fin]), lo[fin], hi[fin])
    X[:, cont] = lo[cont] + np.clip(X[:, cont], 0.0, 1.0) * (hi[cont] - lo[cont])
    return X


def fit_model(problem: CombinatorialProblem, X_raw: np.ndarray, y: np.ndarray):
    """A fitted ``MixedSingleTaskGP`` on the encoded points (float64)."""
    import torch
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import MixedSingleTaskGP
    from gpytorch.mlls import ExactMarginalLogLikelihood

    train_X = torch.tensor(encode(problem, X_raw), dtype=torch.float64)
    train_Y = torch.tensor(np.asarray(y, dtype=float)[:, None], dtype=torch.float64)
    model = MixedSingleTaskGP(train_X, train_Y, cat_dims=problem.finite_columns.tolist())
    fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    return model


def acquisition(method: DiscreteMethod, model, best_f: float):
    """The BoTorch acquisition function of an analytic method (not TS)."""
    from botorch.acquisition import (
        LogExpectedImprovement,
        PosteriorMean,
        ProbabilityOfImprovement,
        UpperConfidenceBound,
    )

    if method.base == "logei":
        return LogExpectedImprovement(model, best_f=best_f)
    if method.base == "pi":
        return ProbabilityOfImprovement(model, best_f=best_f)
    if method.base == "ucb":
        return UpperConfidenceBound(model, beta=method.params["beta"])
    if method.base == "greedy":
        return PosteriorMean(model)
    raise ValueError(f"no analytic acquisition for {method.base!r}")


def candidate_set(
    problem: CombinatorialProblem, X_raw: np.ndarray, y: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Uniform points plus every one-variable neighbour of the incumbent (raw values)."""
    best = X_raw[int(np.argmax(y))]
    neighbours = []
    for j in range(problem.dim):
        k = problem.levels[j]
        values = [v for v in range(k) if v != best[j]] if k else list(rng.random(4))
        for v in values:
            x = best.copy()
            if k:
                x[j] = v
            else:
                lo, hi = problem.bounds[:, j]
                x[j] = lo + v * (hi - lo)
            neighbours.append(x)
    return np.vstack([problem.sample_raw(rng, N_CANDIDATES), *neighbours])


def _unseen(C: np.ndarray, X_raw: np.ndarray) -> np.ndarray:
    """Mask of the rows of C that are no evaluated point."""
    seen = {row.tobytes() for row in np.ascontiguousarray(X_raw, dtype=float)}
    return np.array([row.tobytes() not in seen for row in np.ascontiguousarray(C, dtype=float)])


def propose(
    problem: CombinatorialProblem,
    method: DiscreteMethod,
    X_raw: np.ndarray,
    y: np.ndarray,
    rng: np.random.Generator,
    num_restarts: int = 4,
    raw_samples: int = 256,
) -> tuple[np.ndarray, str]:
    """The next raw point of a GP-based method and its fallback note ('' or 'duplicate')."""
    import torch
    from botorch.exceptions.warnings import BadInitialCandidatesWarning, OptimizationWarning

    torch.manual_seed(int(rng.integers(2**31)))
    with warnings.catch_warnings():
        # BoTorch warns when a GP-free relaxation cannot seed the starts (no continuous
        # block) and when raw samples all score 0 (PI far from the incumbent); both fall back
        # to random starts, which is what we want on a finite domain.
        warnings.simplefilter("ignore", OptimizationWarning)
        warnings.simplefilter("ignore", BadInitialCandidatesWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return _propose(problem, method, X_raw, y, rng, num_restarts, raw_samples)


def _propose(
    problem: CombinatorialProblem,
    method: DiscreteMethod,
    X_raw: np.ndarray,
    y: np.ndarray,
    rng: np.random.Generator,
    num_restarts: int,
    raw_samples: int,
) -> tuple[np.ndarray, str]:
    import torch

    model = fit_model(problem, X_raw, y)
    C = candidate_set(problem, X_raw, y, rng)
    Ct = torch.tensor(encode(problem, C), dtype=torch.float64)
    if method.base == "ts":
        with torch.no_grad():
            scores = model.posterior(Ct).rsample(torch.Size([1])).squeeze().numpy()
        return _best_unseen(C, scores, X_raw), ""
    acq = acquisition(method, model, float(np.max(y)))
    from botorch.optim.optimize_mixed import optimize_acqf_mixed_alternating

    bounds = torch.tensor(
        np.vstack([encode(problem, problem.bounds[:1]), encode(problem, problem.bounds[1:])]),
        dtype=torch.float64,
    )
    cat_dims = {int(j): list(map(float, range(problem.levels[j]))) for j in problem.finite_columns}
    z, _ = optimize_acqf_mixed_alternating(
        acq, bounds, cat_dims=cat_dims or None, num_restarts=num_restarts, raw_samples=raw_samples
    )
    x = decode(problem, z.detach().numpy().reshape(1, -1))[0]
    if _unseen(x[None, :], X_raw)[0]:
        return x, ""
    with torch.no_grad():
        scores = acq(Ct.unsqueeze(1)).numpy()
    return _best_unseen(C, scores, X_raw), "duplicate"


def _best_unseen(C: np.ndarray, scores: np.ndarray, X_raw: np.ndarray) -> np.ndarray:
    mask = _unseen(C, X_raw)
    if not mask.any():
        raise RuntimeError("every candidate was evaluated already")
    idx = np.flatnonzero(mask)
    return C[idx[int(np.argmax(scores[idx]))]]
