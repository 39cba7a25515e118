"""Policy specifications for paper 2: randomized regularized NN policies and baselines.

A :class:`PolicySpec` fully describes one method; ``PRESETS`` maps the method
labels used in configs and figures to specs:

* ``rr_ts`` - RR-TS with the theory-faithful RKHS regulariser (``func``);
* ``rr_ts_anchor`` - RR-TS with anchored L2 (practical, not covered by theory);
* ``rr_ts_tp`` - RR-TS + target perturbation (exact sample-then-optimize for linear models);
* ``nn_warm`` - ablation: no re-randomisation (one theta_0, warm-started training);
* ``nn_greedy`` - ablation: lambda = 0, warm-started, no re-draw;
* ``rr_lfbo_ei`` / ``rr_lfbo_pi`` - RR-LFBO (weighted classification loss + func regulariser);
* ``lfbo_ei`` / ``lfbo_pi`` - official-style LFBO / BORE (warm-started ReLU MLP, no regulariser);
* ``gp_ts`` / ``gp_ucb`` - exact GP baselines on the finite domain (Matern-5/2, fixed hyperparameters);
* ``gp_greedy`` - the same GP's posterior-mean maximiser: a greedy policy with no exploration
  bonus, the control that a stuck rule must call stuck often (our addition, not the paper's);
* ``random`` - uniform random search over the domain.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

KINDS = ("nn", "gp_ts", "gp_ucb", "gp_greedy", "random")


@dataclass(frozen=True)
class PolicySpec:
    """Everything a run needs to know about a method (defaults = RR-TS-FUNC)."""

    kind: str = "nn"
    loss: str = "squared"  # squared | lfbo
    utility: str = "ei"  # LFBO utility: ei | pi
    gamma: float = 0.33  # LFBO quantile: tau = (1 - gamma)-quantile of y
    balance: bool = False  # official LFBO class balancing
    reg: str = "func"  # func | anchor | none
    lam: float = 0.01  # default: the noise variance sigma_eps^2 (0.1^2); configs set it explicitly
    redraw: bool = True  # fresh theta_0 ~ Pi_0 every round
    warm_start: bool = False  # start training from the previous round's theta
    target_perturb: bool = False  # add N(0, lam) to the targets every round
    width: int = 64
    depth: int = 2
    activation: str = "tanh"
    init_scale: float = 1.0
    steps: int = 200
    lr: float = 1e-2
    optimizer: str = "adam"  # adam (float32) | lbfgs (float64, per model)
    kernel_lengthscale: float = (
        0.2  # Matern-5/2 on the domain (func regulariser, GP baselines, bounds)
    )
    kernel_jitter: float = 1e-6
    gp_noise: float = 0.01  # GP baselines' fixed noise variance
    ucb_delta: float = 0.1  # GP-UCB: beta_t = 2 log(N t^2 pi^2 / (6 delta))

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"PolicySpec: kind must be one of {KINDS}, got {self.kind!r}")
        if self.utility not in ("ei", "pi"):
            raise ValueError(f"PolicySpec: utility must be 'ei' or 'pi', got {self.utility!r}")
        if self.optimizer not in ("adam", "lbfgs"):
            raise ValueError(
                f"PolicySpec: optimizer must be 'adam' or 'lbfgs', got {self.optimizer!r}"
            )
        if self.lam < 0 or self.steps < 0 or self.lr <= 0 or self.gp_noise <= 0:
            raise ValueError(f"PolicySpec: invalid numeric settings {self}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: The LFBO baseline of paper 2 (balanced classifier, no regularisation, warm-started ReLU MLP).
_LFBO: dict[str, Any] = {
    "loss": "lfbo",
    "utility": "ei",
    "balance": True,
    "reg": "none",
    "lam": 0.0,
    "redraw": False,
    "warm_start": True,
    "activation": "relu",
    "width": 32,
    "depth": 3,
    "steps": 100,
}
PRESETS: dict[str, dict[str, Any]] = {
    "rr_ts": {},
    "rr_ts_anchor": {"reg": "anchor"},
    "rr_ts_tp": {"target_perturb": True},
    "nn_warm": {"redraw": False, "warm_start": True},
    "nn_greedy": {"reg": "none", "lam": 0.0, "redraw": False, "warm_start": True},
    "rr_lfbo_ei": {"loss": "lfbo", "utility": "ei"},
    "rr_lfbo_pi": {"loss": "lfbo", "utility": "pi"},
    "lfbo_ei": {**_LFBO, "utility": "ei"},
    "lfbo_pi": {**_LFBO, "utility": "pi"},
    "gp_ts": {"kind": "gp_ts"},
    "gp_ucb": {"kind": "gp_ucb"},
    "gp_greedy": {"kind": "gp_greedy"},
    "random": {"kind": "random"},
}


def make_policy(name: str, **overrides: Any) -> PolicySpec:
    """Spec for a preset label with keyword overrides (e.g. ``lam=10``); unknown keys raise."""
    if name not in PRESETS:
        raise ValueError(f"unknown parametric policy {name!r}; known: {sorted(PRESETS)}")
    fields = set(PolicySpec.__dataclass_fields__)
    bad = set(overrides) - fields
    if bad:
        raise ValueError(
            f"policy {name!r}: unknown settings {sorted(bad)}; valid: {sorted(fields)}"
        )
    return replace(PolicySpec(**PRESETS[name]), **overrides)
