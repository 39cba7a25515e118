"""qKG whose fantasy models keep the mean cache GPyTorch already computed for them.

GPyTorch's ``DefaultPredictionStrategy.get_fantasy_strategy`` solves the bordered system of
the conditioned kernel matrix for the fantasy model's mean cache (``O(n^2 q)`` per fantasy)
and stores it with ``add_to_cache(strategy, "mean_cache", value)``, i.e. under the key of a
call *without* arguments; the property ``mean_cache`` reads it through
``_mean_cache(nan_policy)``, under the key *with* the NaN-policy argument, so the stored value
is never found. Every qKG evaluation then builds the ``F``-fold batch of the ``m x m``
conditioned kernel matrix (``m = n + q``) and Cholesky-factorises it once per fantasy:
``O(F m^3)``, most of a qKG step's flops at ``n`` in the hundreds (``docs/kg-profile.md``).

:class:`FantasyCacheKnowledgeGradient` is BoTorch's :class:`qKnowledgeGradient` with one
change: while it evaluates, the fantasy strategy's mean cache is also stored under the key
it is read by (NaN policy ``"ignore"`` only: the bordered solve assumes every label observed).
The value is the same quantity, ``(K + sigma^2 I)^-1 (y - mu)`` of the conditioned model,
obtained by block elimination instead of a fresh factorisation: acquisition values and
gradients agree with plain qKG to rounding (``tests/bo/test_fantasy_cache.py``), the
floating-point path does not, so a trace made with it is not the bits of one made without
(``bo.kg_fantasy_cache`` is part of a run's identity when on).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
from botorch.acquisition import qKnowledgeGradient
from gpytorch import settings as gpt_settings
from gpytorch.models.exact_prediction_strategies import DefaultPredictionStrategy
from gpytorch.utils.memoize import add_to_cache

_NO_ARGS_KEY = ("mean_cache", (), pickle.dumps({}))


def _keep_mean_cache(strategy: Any) -> Any:
    """Store the mean cache ``get_fantasy_strategy`` left under the no-argument key also under
    the key ``mean_cache`` reads (the current NaN policy), when that policy is ``ignore``."""
    policy = gpt_settings.observation_nan_policy.value()
    cache = getattr(strategy, "_memoize_cache", {})
    if policy == "ignore" and _NO_ARGS_KEY in cache:
        add_to_cache(strategy, "mean_cache", cache[_NO_ARGS_KEY], policy)
    return strategy


@contextmanager
def fantasy_mean_cache_kept() -> Iterator[None]:
    """Within the block, fantasy strategies built by GPyTorch keep their mean cache.

    Restores GPyTorch's method on exit, also on an exception; nesting is harmless.
    """
    original = DefaultPredictionStrategy.get_fantasy_strategy

    def get_fantasy_strategy(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _keep_mean_cache(original(self, *args, **kwargs))

    DefaultPredictionStrategy.get_fantasy_strategy = get_fantasy_strategy  # type: ignore[method-assign]
    try:
        yield
    finally:
        DefaultPredictionStrategy.get_fantasy_strategy = original  # type: ignore[method-assign]


class FantasyCacheKnowledgeGradient(qKnowledgeGradient):
    """BoTorch's one-shot qKG, evaluated with :func:`fantasy_mean_cache_kept`."""

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        with fantasy_mean_cache_kept():
            return super().forward(X)

    def evaluate(self, X: torch.Tensor, bounds: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        with fantasy_mean_cache_kept():
            return super().evaluate(X, bounds, **kwargs)
