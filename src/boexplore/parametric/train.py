"""Full-batch training of B independent models on the regularised round-t objective.

L_t(theta) = sum_i loss(g(x_i, theta); y_i) + lambda * R(theta; theta_0), with
squared loss 1/2 (u - y)^2 or the LFBO weighted-classification loss, and
R = 1/2 ||g_theta - g_theta0||_K^2 (``func``: RKHS norm of the Matern kernel on
the finite domain, (g - g0)^T K^{-1} (g - g0)), 1/2 ||theta - theta_0||^2
(``anchor``) or nothing (``none``). Sum (not mean) of losses, as in the theory.
Adam is element-wise, so the B models train exactly independently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.nn.functional import softplus

from boexplore.parametric.mlp import Params

REGULARISERS = ("func", "anchor", "none")
LOSSES = ("squared", "lfbo")


@dataclass
class RoundObjective:
    """The batched round-t training objective (all tensors have leading batch axis B)."""

    idx: torch.Tensor  # (B, t) long, data indices into the domain
    loss: str = "squared"
    y: torch.Tensor | None = None  # (B, t) regression targets
    pos_w: torch.Tensor | None = None  # (B, t) LFBO positive weights
    neg_w: torch.Tensor | None = None  # (B, t) LFBO negative weights
    reg: str = "func"
    lam: float = 1.0
    K_inv: torch.Tensor | None = None  # (N, N) for reg="func"
    G0: torch.Tensor | None = None  # (B, N) anchor function values for reg="func"
    theta0: Params | None = None  # anchor parameters for reg="anchor"

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"RoundObjective: loss must be one of {LOSSES}, got {self.loss!r}")
        if self.reg not in REGULARISERS:
            raise ValueError(f"RoundObjective: reg must be one of {REGULARISERS}, got {self.reg!r}")
        if self.lam < 0:
            raise ValueError(f"RoundObjective: lambda must be >= 0, got {self.lam}")
        if self.loss == "squared" and self.y is None:
            raise ValueError("RoundObjective: squared loss needs targets y")
        if self.loss == "lfbo" and (self.pos_w is None or self.neg_w is None):
            raise ValueError("RoundObjective: lfbo loss needs pos_w and neg_w")
        if self.reg == "func" and self.lam > 0 and (self.K_inv is None or self.G0 is None):
            raise ValueError("RoundObjective: func regulariser needs K_inv and G0")
        if self.reg == "anchor" and self.lam > 0 and self.theta0 is None:
            raise ValueError("RoundObjective: anchor regulariser needs theta0")

    def data_loss(self, G: torch.Tensor) -> torch.Tensor:
        """Sum of per-observation losses (B,) from domain values G (B, N)."""
        u = torch.gather(G, 1, self.idx)
        if self.loss == "squared":
            return 0.5 * ((u - self.y) ** 2).sum(1)
        return (self.pos_w * softplus(-u) + self.neg_w * softplus(u)).sum(1)

    def func_reg(self, G: torch.Tensor) -> torch.Tensor:
        """1/2 (g - g0)^T K^{-1} (g - g0) per model (B,)."""
        D = G - self.G0
        return 0.5 * ((D @ self.K_inv) * D).sum(1)

    def anchor_reg(self, params: Params) -> torch.Tensor:
        """1/2 ||theta - theta0||^2 per model (B,)."""
        total = torch.zeros(params[0].shape[0], dtype=params[0].dtype)
        for p, p0 in zip(params, self.theta0, strict=True):
            total = total + 0.5 * ((p - p0) ** 2).reshape(p.shape[0], -1).sum(1)
        return total

    def value(self, G: torch.Tensor, params: Params | None = None) -> torch.Tensor:
        """L_t per model (B,); ``params`` is needed only for the anchor regulariser."""
        out = self.data_loss(G)
        if self.lam > 0 and self.reg == "func":
            out = out + self.lam * self.func_reg(G)
        elif self.lam > 0 and self.reg == "anchor":
            if params is None:
                return torch.full_like(out, float("nan"))
            out = out + self.lam * self.anchor_reg(params)
        return out


def train(
    params: Params,
    model: Callable[[Params], torch.Tensor],
    objective: RoundObjective,
    steps: int = 300,
    lr: float = 1e-2,
    decay_at: float = 0.7,
) -> tuple[Params, torch.Tensor]:
    """Adam on sum_b L_t^b from ``params``; lr drops 10x after ``decay_at`` of the steps.

    Returns the trained (detached) parameters and the final objective values (B,).
    """
    if steps < 0 or lr <= 0:
        raise ValueError(f"train: need steps >= 0 and lr > 0, got {steps}, {lr}")
    params = [p.detach().clone().requires_grad_(True) for p in params]
    if steps > 0:
        opt = torch.optim.Adam(params, lr=lr)
        switch = int(decay_at * steps)
        for step in range(steps):
            if step == switch:
                for group in opt.param_groups:
                    group["lr"] = lr / 10
            opt.zero_grad(set_to_none=True)
            loss = objective.value(model(params), params).sum()
            loss.backward()
            opt.step()
    with torch.no_grad():
        final = objective.value(model(params), params)
    return [p.detach() for p in params], final
