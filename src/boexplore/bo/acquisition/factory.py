"""Construct the BoTorch acquisition function for a method spec.

``build_acqf`` returns the AF and how a q-batch is built from it: ``"joint"``
(optimise all q points together: analytic AF for q = 1, qUCB / qLogEI / qPI /
qKG for q > 1) or ``"sequential"`` (greedy: optimise one point, add it to
``X_pending``, repeat; used for MES, GIBBON, JES, PES and greedy with q > 1).
Objective values live in the original (maximisation) scale; the model's
``Standardize`` transform is undone by BoTorch inside the posterior.
"""

from __future__ import annotations

from typing import Literal

import torch
from botorch.acquisition import (
    AcquisitionFunction,
    LogExpectedImprovement,
    PosteriorMean,
    ProbabilityOfImprovement,
    UpperConfidenceBound,
    qKnowledgeGradient,
    qLogExpectedImprovement,
    qLowerBoundMaxValueEntropy,
    qMaxValueEntropy,
    qProbabilityOfImprovement,
    qSimpleRegret,
    qUpperConfidenceBound,
)
from botorch.acquisition.analytic import LogProbabilityOfImprovement
from botorch.acquisition.joint_entropy_search import qJointEntropySearch
from botorch.acquisition.predictive_entropy_search import qPredictiveEntropySearch
from botorch.acquisition.utils import get_optimal_samples
from botorch.models import SingleTaskGP
from botorch.sampling.normal import SobolQMCNormalSampler

from boexplore.bo.acquisition.fantasy_cache import FantasyCacheKnowledgeGradient
from boexplore.bo.methods import MethodSpec
from boexplore.bo.settings import BOSettings

Mode = Literal["joint", "sequential"]
SEQUENTIAL_BASES = frozenset({"mes", "gibbon", "jes", "pes", "greedy"})


def batch_mode(spec: MethodSpec) -> Mode:
    """How q > 1 points are chosen for this method."""
    return "sequential" if spec.q > 1 and spec.base in SEQUENTIAL_BASES else "joint"


def build_acqf(
    spec: MethodSpec,
    model: SingleTaskGP,
    best_f: float,
    bounds: torch.Tensor,
    candidate_set: torch.Tensor | None,
    settings: BOSettings,
    seed: int,
) -> AcquisitionFunction:
    """Acquisition function for ``spec`` (TS is handled in ``thompson``, not here).

    ``best_f``: best (imputed) observed value, for EI/PI. ``candidate_set``:
    discretisation for MES/GIBBON. ``bounds`` (2, d): search box, for the
    optimal-input samples of JES/PES.
    """
    p = spec.params
    q = spec.q
    sampler = SobolQMCNormalSampler(sample_shape=torch.Size([settings.mc_samples]), seed=seed)
    base = spec.base
    if base == "ucb":
        if q == 1:
            return UpperConfidenceBound(model, beta=float(p["beta"]))
        return qUpperConfidenceBound(model, beta=float(p["beta"]), sampler=sampler)
    if base == "logei":
        if q == 1:
            return LogExpectedImprovement(model, best_f=best_f)
        return qLogExpectedImprovement(model, best_f=best_f, sampler=sampler)
    if base == "pi":
        if q == 1:
            return ProbabilityOfImprovement(model, best_f=best_f)
        return qProbabilityOfImprovement(model, best_f=best_f, sampler=sampler)
    if base == "logpi":
        if q == 1:
            return LogProbabilityOfImprovement(model, best_f=best_f)
        return qProbabilityOfImprovement(model, best_f=best_f, sampler=sampler)
    if base == "kg":
        fant = SobolQMCNormalSampler(sample_shape=torch.Size([int(p["fantasies"])]), seed=seed)
        kg = FantasyCacheKnowledgeGradient if settings.kg_fantasy_cache else qKnowledgeGradient
        return kg(model, num_fantasies=int(p["fantasies"]), sampler=fant)
    if base in ("mes", "gibbon"):
        if candidate_set is None:
            raise ValueError(f"{base} needs a candidate set")
        if base == "mes":
            return qMaxValueEntropy(
                model,
                candidate_set,
                num_mv_samples=int(p["mv_samples"]),
                num_y_samples=int(p["y_samples"]),
            )
        return qLowerBoundMaxValueEntropy(model, candidate_set, num_mv_samples=int(p["mv_samples"]))
    if base in ("jes", "pes"):
        optimal_inputs, optimal_outputs = get_optimal_samples(
            model,
            bounds=bounds,
            num_optima=int(p["optima"]),
            raw_samples=settings.raw_samples,
            num_restarts=settings.num_restarts,
        )
        if base == "jes":
            return qJointEntropySearch(
                model,
                optimal_inputs=optimal_inputs,
                optimal_outputs=optimal_outputs,
                estimation_type=str(p["estimation"]),
            )
        return qPredictiveEntropySearch(
            model, optimal_inputs=optimal_inputs, max_ep_iterations=int(p["ep_iterations"])
        )
    if base == "greedy":
        if q == 1:
            return PosteriorMean(model)
        return qSimpleRegret(model, sampler=sampler)
    raise ValueError(f"no acquisition function for method {base!r}")
