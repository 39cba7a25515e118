"""Batched tanh MLPs: a stack of B independent networks evaluated with ``bmm``.

Parameters are a list ``[W1 (B,d,m), b1 (B,m), ..., W_out (B,m,1), b_out (B,1)]``
(the layout of :func:`boexplore.problems.finite.init_mlp_params` with a leading
batch axis), so one Adam step trains B seeds / posterior draws at once and the
networks stay exactly independent (Adam is element-wise).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

Params = list[torch.Tensor]
DTYPE = torch.float64

_ACTIVATIONS = {
    "tanh": torch.tanh,
    "softplus": torch.nn.functional.softplus,
    "gelu": torch.nn.functional.gelu,
    "relu": torch.relu,
}


@dataclass(frozen=True)
class MLPSpec:
    """Architecture and initialisation prior Pi_0 (weights N(0, s^2/fan_in), biases N(0, s^2))."""

    in_dim: int
    width: int = 64
    depth: int = 2
    activation: str = "tanh"
    init_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.in_dim < 1 or self.width < 1 or self.depth < 1:
            raise ValueError(f"MLPSpec: in_dim, width, depth must be >= 1, got {self}")
        if self.init_scale <= 0:
            raise ValueError(f"MLPSpec: init_scale must be > 0, got {self.init_scale}")
        if self.activation not in _ACTIVATIONS:
            raise ValueError(
                f"MLPSpec: unknown activation {self.activation!r}; use {sorted(_ACTIVATIONS)}"
            )

    @property
    def sizes(self) -> list[int]:
        return [self.in_dim] + [self.width] * self.depth + [1]


def init_params(spec: MLPSpec, seeds: Sequence[int], stream: int = 0) -> Params:
    """Draw one network per seed from Pi_0; seed k's draw depends only on (k, stream)."""
    per_seed = []
    for seed in seeds:
        gen = torch.Generator().manual_seed(
            int(np.random.SeedSequence([int(seed), int(stream)]).generate_state(1)[0])
        )
        layers = []
        for fan_in, fan_out in zip(spec.sizes[:-1], spec.sizes[1:], strict=True):
            layers.append(
                torch.randn(fan_in, fan_out, generator=gen, dtype=DTYPE)
                * (spec.init_scale / fan_in**0.5)
            )
            layers.append(torch.randn(fan_out, generator=gen, dtype=DTYPE) * spec.init_scale)
        per_seed.append(layers)
    return [torch.stack([p[i] for p in per_seed]) for i in range(len(per_seed[0]))]


def forward(params: Params, X: torch.Tensor, activation: str = "tanh") -> torch.Tensor:
    """Outputs (B, n) of the B networks at X (n, d) shared or (B, n, d)."""
    act = _ACTIVATIONS[activation]
    B = params[0].shape[0]
    h = X.expand(B, *X.shape) if X.dim() == 2 else X
    n_layers = len(params) // 2
    for i in range(n_layers):
        h = torch.baddbmm(params[2 * i + 1].unsqueeze(1), h, params[2 * i])
        if i < n_layers - 1:
            h = act(h)
    return h[..., 0]


def from_numpy(params: Sequence[np.ndarray], batch: int = 1) -> Params:
    """Unbatched numpy parameters (e.g. a teacher) -> batched torch parameters (repeated)."""
    return [
        torch.as_tensor(p, dtype=DTYPE).unsqueeze(0).repeat(batch, *([1] * p.ndim)) for p in params
    ]


def embed_params(params: Sequence[np.ndarray], width: int) -> list[np.ndarray] | None:
    """Zero-pad a narrower MLP into ``width`` hidden units (same function); None if impossible."""
    hidden = params[0].shape[1]
    if width < hidden:
        return None
    pad = width - hidden
    out: list[np.ndarray] = []
    n_layers = len(params) // 2
    for i in range(n_layers):
        W, b = params[2 * i], params[2 * i + 1]
        rows = 0 if i == 0 else pad
        cols = 0 if i == n_layers - 1 else pad
        out.append(np.pad(W, ((0, rows), (0, cols))))
        out.append(np.pad(b, (0, cols)))
    return out


def clone(params: Params) -> Params:
    """Detached copies."""
    return [p.detach().clone() for p in params]
