"""The GP's marginal likelihood maximised over log hyperparameters (``gp_fit = "log"``).

BoTorch's ``fit_gpytorch_mll`` runs L-BFGS-B on the *raw* parameters. Under today's default
prior (``gp_prior = "dim_scaled"``) the lengthscale and noise constraints have no transform,
so the raw parameter is the lengthscale itself: a lengthscale of an irrelevant dimension
creeps from ~1 towards ~10-100 by small linear steps, and at d = 100-180 a fit takes 600-1,900
objective evaluations (docs/step-profile.md). This module optimises the *same objective* (the
exact marginal log likelihood with the model's priors, per datum, as GPyTorch computes it) over
``theta = log(value)`` for every positive scale hyperparameter (lengthscales, noise,
outputscale) and over the raw value for the rest (the constant mean): the same optimum set,
a better-conditioned search, ~60 evaluations at d = 100.

The map: ``value = constraint.transform(raw)``, ``theta = log(value)``; back,
``raw = constraint.inverse_transform(exp(theta))``. A lower bound ``lb > 0`` on the value
becomes the bound ``theta >= log(lb)`` (``GreaterThan(1e-4)`` on the noise,
``GreaterThan(2.5e-2)`` on the lengthscales); a ``Positive`` value needs none. The gradient
is the raw gradient times ``d raw / d theta`` (elementwise, by autograd through the
constraint's inverse transform). Optimiser: SciPy's L-BFGS-B with its default tolerances, the
optimiser BoTorch uses. It changes which optimum a fit finds and how fast, so it changes
traces: a run's identity records it (``bo/loop.py``, ``IDENTITY_IF_SET``).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from botorch.models import SingleTaskGP
from gpytorch.constraints import GreaterThan, Interval
from gpytorch.mlls import ExactMarginalLogLikelihood
from scipy.optimize import minimize

#: Parameter-name endings optimised in log space (positive scale hyperparameters).
LOG_SPACE_SUFFIXES: tuple[str, ...] = ("raw_lengthscale", "raw_noise", "raw_outputscale")


class _Block:
    """One model parameter as a slice of the optimiser's vector."""

    def __init__(self, name: str, param: torch.nn.Parameter, constraint: Interval | None) -> None:
        self.name = name
        self.param = param
        self.constraint = constraint
        self.log = name.endswith(LOG_SPACE_SUFFIXES)
        self.size = param.numel()

    def value(self) -> torch.Tensor:
        raw = self.param.detach()
        return raw if self.constraint is None else self.constraint.transform(raw)

    def to_theta(self) -> np.ndarray:
        v = self.value().reshape(-1)
        return (torch.log(v) if self.log else v).cpu().numpy().astype(float)

    def bounds(self) -> list[tuple[float | None, float | None]]:
        lb = None
        if isinstance(self.constraint, GreaterThan | Interval):
            low = float(self.constraint.lower_bound.reshape(-1)[0])
            if self.log:
                lb = math.log(low) if low > 0 else None
            elif math.isfinite(low):
                lb = low
        return [(lb, None)] * self.size

    def set_theta(self, theta: np.ndarray) -> torch.Tensor:
        """Write ``theta`` into the parameter; returns d raw / d theta (flat)."""
        t = torch.as_tensor(theta, dtype=self.param.dtype, device=self.param.device)
        if not self.log:
            raw, jac = t, torch.ones_like(t)
        else:
            value = torch.exp(t).requires_grad_(True)
            inv = value if self.constraint is None else self.constraint.inverse_transform(value)
            (dv,) = torch.autograd.grad(inv.sum(), value)
            raw, jac = inv.detach(), dv * value.detach()
        with torch.no_grad():
            self.param.copy_(raw.reshape(self.param.shape))
        return jac


def _blocks(model: SingleTaskGP) -> list[_Block]:
    constraints = {name.removesuffix("_constraint"): c for name, c in model.named_constraints()}
    return [
        _Block(name, p, constraints.get(name))
        for name, p in model.named_parameters()
        if p.requires_grad
    ]


def fit_log_space(mll: ExactMarginalLogLikelihood) -> dict[str, object]:
    """Maximise ``mll`` (in place) over log hyperparameters; returns SciPy's summary.

    Raises what the objective raises (e.g. a failed Cholesky), like BoTorch's fit, so the
    engine's retry policy (``bo/model.py``) applies unchanged. The model is left in train
    mode at the optimum (the caller puts it in eval mode).
    """
    model = mll.model
    model.train()
    blocks = _blocks(model)
    x0 = np.concatenate([b.to_theta() for b in blocks])
    bounds = [bd for b in blocks for bd in b.bounds()]
    x0 = np.array(
        [max(x, lo) if lo is not None else x for x, (lo, _) in zip(x0, bounds, strict=True)]
    )
    train_x, train_y = model.train_inputs, model.train_targets

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        jacs, start = [], 0
        for b in blocks:
            jacs.append(b.set_theta(theta[start : start + b.size]))
            start += b.size
        model.zero_grad()
        loss = -mll(model(*train_x), train_y)
        loss.backward()
        grad = [
            (b.param.grad.reshape(-1) * j if b.param.grad is not None else torch.zeros_like(j))
            for b, j in zip(blocks, jacs, strict=True)
        ]
        return float(loss), torch.cat(grad).detach().cpu().numpy().astype(float)

    result = minimize(objective, x0, jac=True, method="L-BFGS-B", bounds=bounds)
    objective(result.x)  # leave the parameters at the optimiser's answer
    if not np.isfinite(result.fun):
        raise RuntimeError(f"log-space GP fit ended at a non-finite loss ({result.message})")
    return {"nfev": int(result.nfev), "nit": int(result.nit), "message": str(result.message)}
