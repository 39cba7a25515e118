"""TuRBO-style trust region: side length, success/failure counters, restarts.

Follows the definition of Eriksson et al. (2019, TuRBO-1): the region is a box
centred at the incumbent whose side lengths are ``length`` times the GP
lengthscales normalised to geometric mean 1, clipped to [0,1]^d. After
``success_tolerance`` consecutive improving batches the length doubles (up to
``length_max``); after ``failure_tolerance`` consecutive non-improving batches
it halves. When it falls below ``length_min`` the region *restarts*: the
length and counters reset (observed data are kept, so the GP still sees them).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch


@dataclass
class TrustRegionState:
    """Mutable state of one trust region."""

    dim: int
    q: int = 1
    length: float = 0.8
    length_init: float = 0.8
    length_min: float = 0.5**7
    length_max: float = 1.6
    success_tolerance: int = 3
    failure_tolerance: int = 0  # 0 -> ceil(max(4/q, d/q)) as in TuRBO
    success_counter: int = 0
    failure_counter: int = 0
    restarts: int = 0
    best_value: float = -math.inf

    def __post_init__(self) -> None:
        if self.failure_tolerance <= 0:
            self.failure_tolerance = int(math.ceil(max(4.0 / self.q, self.dim / self.q)))

    def update(self, batch_best: float) -> None:
        """Update counters/length after a batch whose best value is ``batch_best`` (NaN = failure)."""
        if batch_best != batch_best:
            improved = False
        elif not math.isfinite(self.best_value):
            improved = True
        else:
            improved = batch_best > self.best_value + 1e-3 * abs(self.best_value)
        if improved:
            self.success_counter += 1
            self.failure_counter = 0
        else:
            self.failure_counter += 1
            self.success_counter = 0
        if self.success_counter >= self.success_tolerance:
            self.length = min(2.0 * self.length, self.length_max)
            self.success_counter = 0
        elif self.failure_counter >= self.failure_tolerance:
            self.length /= 2.0
            self.failure_counter = 0
        if batch_best == batch_best:
            self.best_value = max(self.best_value, batch_best)
        if self.length < self.length_min:
            self.length = self.length_init
            self.success_counter = 0
            self.failure_counter = 0
            self.restarts += 1

    def bounds(self, center: torch.Tensor, lengthscales: torch.Tensor | None) -> torch.Tensor:
        """(2, d) box around ``center``; side lengths weighted by normalised lengthscales."""
        d = center.shape[-1]
        if lengthscales is None:
            weights = torch.ones(d, dtype=center.dtype, device=center.device)
        else:
            ls = lengthscales.detach().reshape(-1).to(center.dtype)
            weights = ls / ls.mean()
            weights = weights / torch.prod(weights.pow(1.0 / d))
        half = weights * self.length / 2.0
        lower = torch.clamp(center - half, 0.0, 1.0)
        upper = torch.clamp(center + half, 0.0, 1.0)
        return torch.stack([lower, upper])

    def to_dict(self) -> dict:
        """Plain dict for checkpoints."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TrustRegionState:
        """Inverse of ``to_dict``."""
        return cls(**data)
