"""Peak memory of a qKG step, and the restart batch that fits a memory cap.

A one-shot qKG evaluation of ``b`` restarts conditions the GP on ``q`` fantasised points
per fantasy, so it holds ``b * fantasies`` copies of ``(n + q) x (n + q)`` covariance
factors and ``(n + q) x d`` inputs. The peak of a step is the fitted model's footprint
plus the larger of two phases: the L-BFGS-B evaluations (forward + backward on
``batch_limit`` restarts) and the one-shot initial conditions (forward only, on
``init_batch_limit`` raw samples at a time)::

    peak_mb = base_mb + n_mb * (n / 100)^2 + max(grad(batch_limit), nograd(init_batch_limit))
    grad(b) = g_0 + b * fantasies * 8 B * (g_sq * (n + q)^2 + g_lin * (n + q) * d) / MiB

and likewise ``nograd`` with its own three coefficients (``g_0``: the allocator's and
autograd's overhead of an evaluation, which matters at small n only). The coefficients are fitted by
non-negative least squares to measured peaks (``python -m boexplore.bench.kg_memory``,
``docs/kg-memory.csv``); :data:`KG_MEMORY` holds that fit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

MIB = 2.0**20
#: Stated error of the model: every measured peak (probes and full steps) within this share.
FIT_TOLERANCE = 0.20
#: Initial-condition chunk of today's engine (raw samples evaluated together).
INIT_BATCH_LIMIT = 8


@dataclass(frozen=True)
class KGMemoryModel:
    """Coefficients of the peak-memory model (MB; see the module docstring)."""

    base_mb: float
    n_mb: float
    grad_mb: float
    grad_sq: float
    grad_lin: float
    nograd_mb: float
    nograd_sq: float
    nograd_lin: float

    def phase_mb(self, n: int, d: int, q: int, fantasies: int, batch: int, grad: bool) -> float:
        """Memory held by one qKG evaluation of ``batch`` one-shot q-batches."""
        m = float(n + q)
        if grad:
            c0, sq, lin = self.grad_mb, self.grad_sq, self.grad_lin
        else:
            c0, sq, lin = self.nograd_mb, self.nograd_sq, self.nograd_lin
        return c0 + batch * fantasies * 8.0 * (sq * m * m + lin * m * d) / MIB

    def fitted_mb(self, n: int) -> float:
        """Resident memory of the process with the GP fitted (before the acquisition)."""
        return self.base_mb + self.n_mb * (n / 100.0) ** 2

    def step_peak_mb(self, n: int, d: int, q: int, fantasies: int, batch_limit: int = 1,
                     init_batch_limit: int = INIT_BATCH_LIMIT) -> float:  # fmt: skip
        """Predicted peak resident memory of one qKG step."""
        grad = self.phase_mb(n, d, q, fantasies, batch_limit, grad=True)
        nograd = self.phase_mb(n, d, q, fantasies, init_batch_limit, grad=False)
        return self.fitted_mb(n) + max(grad, nograd)

    def to_dict(self) -> dict[str, float]:
        """Plain dict (for the cost calibration and the docs)."""
        return asdict(self)


#: Fit to docs/kg-memory.csv (``fit_memory_model``; tests/bo/test_kg_memory.py checks it).
KG_MEMORY = KGMemoryModel(
    base_mb=414.42409796463807,
    n_mb=1.4059253358004464,
    grad_mb=36.02868567071112,
    grad_sq=5.97544421911834,
    grad_lin=3.2860383794136254,
    nograd_mb=4.778362245996085,
    nograd_sq=5.053838141088793,
    nograd_lin=0.0,
)


def kg_batch_limit(n: int, d: int, q: int, fantasies: int, num_restarts: int,
                   cap_mb: float | None, model: KGMemoryModel = KG_MEMORY) -> int:  # fmt: skip
    """Largest number of restarts optimised together whose predicted step peak stays within
    ``cap_mb`` (1 when even one restart does not fit, or when ``cap_mb`` is None)."""
    if cap_mb is None:
        return 1
    best = 1
    for batch in range(2, num_restarts + 1):
        if model.step_peak_mb(n, d, q, fantasies, batch_limit=batch) <= cap_mb:
            best = batch
    return best


def fit_memory_model(rows: Sequence[Mapping[str, float | str]]) -> KGMemoryModel:
    """Non-negative least-squares fit of :class:`KGMemoryModel` to measured rows.

    Each row has ``kind`` (``grad`` / ``nograd`` probes, full ``step``), ``n``, ``dim``,
    ``fantasies``, ``batch``, ``init_batch``, ``fit_mb`` (after the fit) and ``peak_mb``;
    ``q`` is 1. The fitted footprint comes from ``fit_mb``, the phase coefficients from the
    probes' peak above it (steps are kept out of the fit to validate it).
    """
    import numpy as np
    from scipy.optimize import nnls

    rows = [r for r in rows if r["kind"] != "step"]
    n = np.array([float(r["n"]) for r in rows])
    fit_design = np.column_stack([np.ones_like(n), (n / 100.0) ** 2])
    (base, n_mb), _ = nnls(fit_design, np.array([float(r["fit_mb"]) for r in rows]))
    coef: dict[str, float] = {}
    for kind in ("grad", "nograd"):
        sel = [r for r in rows if r["kind"] == kind]
        if not sel:
            coef |= {f"{kind}_mb": 0.0, f"{kind}_sq": 0.0, f"{kind}_lin": 0.0}
            continue
        m = np.array([float(r["n"]) + 1.0 for r in sel])
        scale = np.array([float(r["batch"]) * float(r["fantasies"]) * 8.0 / MIB for r in sel])
        dim = np.array([float(r["dim"]) for r in sel])
        design = np.column_stack([np.ones_like(m), scale * m * m, scale * m * dim])
        fitted = base + n_mb * (np.array([float(r["n"]) for r in sel]) / 100.0) ** 2
        target = np.array([float(r["peak_mb"]) for r in sel]) - fitted
        (c0, sq, lin), _ = nnls(design, np.clip(target, 0.0, None))
        coef |= {f"{kind}_mb": float(c0), f"{kind}_sq": float(sq), f"{kind}_lin": float(lin)}
    return KGMemoryModel(base_mb=float(base), n_mb=float(n_mb), **coef)


def predict_row(model: KGMemoryModel, row: Mapping[str, float | str]) -> float:
    """The model's peak for one measured row (probe or full step), q = 1."""
    n, d, f, b = (int(float(row[k])) for k in ("n", "dim", "fantasies", "batch"))
    if row["kind"] == "step":
        return model.step_peak_mb(n, d, 1, f, b, int(float(row["init_batch"])))
    return model.fitted_mb(n) + model.phase_mb(n, d, 1, f, b, grad=row["kind"] == "grad")
