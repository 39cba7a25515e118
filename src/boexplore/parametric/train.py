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
    anchor_scale: float = 1.0  # init scale s: anchored L2 is 1/2 ||theta - theta0||^2 / s^2

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"RoundObjective: loss must be one of {LOSSES}, got {self.loss!r}")
        if self.reg not in REGULARISERS:
            raise ValueError(f"RoundObjective: reg must be one of {REGULARISERS}, got {self.reg!r}")
        if self.anchor_scale <= 0:
            raise ValueError(f"RoundObjective: anchor_scale must be > 0, got {self.anchor_scale}")
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

    def select(self, b: int) -> RoundObjective:
        """The objective of model ``b`` alone (batch axis of size 1)."""

        def one(x: torch.Tensor | None) -> torch.Tensor | None:
            return None if x is None else x[b : b + 1]

        return RoundObjective(
            idx=self.idx[b : b + 1],
            loss=self.loss,
            y=one(self.y),
            pos_w=one(self.pos_w),
            neg_w=one(self.neg_w),
            reg=self.reg,
            lam=self.lam,
            K_inv=self.K_inv,
            G0=one(self.G0),
            theta0=None if self.theta0 is None else [p[b : b + 1] for p in self.theta0],
            anchor_scale=self.anchor_scale,
        )

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
        """1/2 ||theta - theta0||^2 / s^2 per model (B,) (s = init scale, as in the spec)."""
        total = torch.zeros(params[0].shape[0], dtype=params[0].dtype)
        for p, p0 in zip(params, self.theta0, strict=True):
            total = total + 0.5 * ((p - p0) ** 2).reshape(p.shape[0], -1).sum(1)
        return total / self.anchor_scale**2

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


OPTIMIZERS = ("adam", "lbfgs")


def _adam(
    params: Params,
    model: Callable[[Params], torch.Tensor],
    objective: RoundObjective,
    steps: int,
    lr: float,
    decay_at: float,
) -> None:
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


def _lbfgs(
    params: Params,
    model: Callable[[Params], torch.Tensor],
    objective: RoundObjective,
    max_iter: int,
) -> None:
    """One L-BFGS (strong-Wolfe line search) per model, so the B models stay independent."""
    for b in range(params[0].shape[0]):
        pb = [p[b : b + 1].detach().clone().requires_grad_(True) for p in params]
        obj_b = objective.select(b)
        opt = torch.optim.LBFGS(
            pb,
            lr=1.0,
            max_iter=max_iter,
            max_eval=int(max_iter * 1.25) + 1,
            history_size=50,
            tolerance_grad=1e-9,
            tolerance_change=1e-12,
            line_search_fn="strong_wolfe",
        )

        def closure(pb=pb, obj_b=obj_b, opt=opt) -> torch.Tensor:
            opt.zero_grad(set_to_none=True)
            loss = obj_b.value(model(pb), pb).sum()
            loss.backward()
            return loss

        opt.step(closure)
        with torch.no_grad():
            for p, q in zip(params, pb, strict=True):
                p[b : b + 1] = q


def train(
    params: Params,
    model: Callable[[Params], torch.Tensor],
    objective: RoundObjective,
    steps: int = 300,
    lr: float = 1e-2,
    decay_at: float = 0.7,
    optimizer: str = "adam",
) -> tuple[Params, torch.Tensor]:
    """Minimise L_t^b for every model b from ``params``; returns (detached params, final L_t (B,)).

    ``adam``: full-batch Adam on sum_b L_t^b (element-wise, so the models are independent),
    lr drops 10x after ``decay_at`` of ``steps``. ``lbfgs``: ``steps`` L-BFGS iterations per
    model (``lr`` unused); run it in float64, since K^{-1} is ill-conditioned.
    """
    if steps < 0 or lr <= 0:
        raise ValueError(f"train: need steps >= 0 and lr > 0, got {steps}, {lr}")
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"train: optimizer must be one of {OPTIMIZERS}, got {optimizer!r}")
    params = [p.detach().clone().requires_grad_(True) for p in params]
    if steps > 0 and optimizer == "adam":
        _adam(params, model, objective, steps, lr, decay_at)
    elif steps > 0:
        _lbfgs(params, model, objective, steps)
    with torch.no_grad():
        final = objective.value(model(params), params)
    return [p.detach() for p in params], final
