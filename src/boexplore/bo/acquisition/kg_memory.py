"""Peak memory of a qKG step, and the restart batch that fits a memory cap.

A one-shot qKG evaluation of ``b`` restarts conditions the GP on ``q`` fantasised points
per fantasy, so it holds ``b * fantasies`` copies of ``(n + q) x (n + q)`` covariance
factors and ``(n + q) x d`` inputs. The peak of a step is the fitted model's footprint
plus the larger of two phases: the L-BFGS-B evaluations (forward + backward on
``batch_limit`` restarts) and the one-shot initial conditions (forward only, on
``init_batch_limit`` raw samples at a time)::

    peak_mb = base_mb + n_mb * (n / 100)^2 + step_draw * draw_mb
              + max((1 + grad_share) * grad(batch_limit), (1 + nograd_share) * nograd(init_batch_limit))
    grad(b) = g_0 + b * fantasies * 8 B * (g_sq * (n + q)^2 + g_lin * (n + q) * d) / MiB
    draw_mb = raw_samples * (q + fantasies) * d * 8 B / MiB

and likewise ``nograd`` with its own three coefficients (``g_0``: the allocator's and
autograd's overhead of an evaluation, which matters at small n only). A full step holds
more than its largest phase alone, which the step terms carry: the raw-sample draw of the
initial conditions (and the Sobol scrambling behind it) stays resident (``step_draw``);
a hundred-odd consecutive chunk evaluations leave the allocator holding a share of the
initial-condition phase more (``nograd_share``), and L-BFGS-B's evaluations of several
restarts together a share of the gradient phase (``grad_share``).

The base and phase coefficients are fitted by non-negative least squares to single
evaluations (probes), the step terms to full steps, on their relative error
(``python -m boexplore.bench.kg_memory``, ``docs/kg-memory.csv``); :data:`KG_MEMORY` holds
that fit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace

MIB = 2.0**20
#: Stated error of the model: every measured peak (probes and full steps) within this share.
FIT_TOLERANCE = 0.20
#: Initial-condition chunk of today's engine (raw samples evaluated together).
INIT_BATCH_LIMIT = 8
#: Raw samples of the one-shot initial conditions when the caller does not say.
RAW_SAMPLES = 1024


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
    nograd_share: float
    grad_share: float
    step_draw: float

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
                     init_batch_limit: int = INIT_BATCH_LIMIT,
                     raw_samples: int = RAW_SAMPLES) -> float:  # fmt: skip
        """Predicted peak resident memory of one qKG step."""
        grad = self.phase_mb(n, d, q, fantasies, batch_limit, grad=True)
        nograd = self.phase_mb(n, d, q, fantasies, init_batch_limit, grad=False)
        held = max((1.0 + self.grad_share) * grad, (1.0 + self.nograd_share) * nograd)
        return self.fitted_mb(n) + held + self.step_draw * draw_mb(d, q, fantasies, raw_samples)

    def to_dict(self) -> dict[str, float]:
        """Plain dict (for the cost calibration and the docs)."""
        return asdict(self)


def draw_mb(d: int, q: int, fantasies: int, raw_samples: int = RAW_SAMPLES) -> float:
    """Size of the raw-sample draw of the one-shot initial conditions (doubles, MB)."""
    return raw_samples * (q + fantasies) * d * 8.0 / MIB


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
    nograd_share=0.22287067498022373,
    grad_share=1.122799083704426,
    step_draw=6.03294939504552,
)


def kg_batch_limit(n: int, d: int, q: int, fantasies: int, num_restarts: int,
                   cap_mb: float | None, model: KGMemoryModel = KG_MEMORY,
                   raw_samples: int = RAW_SAMPLES) -> int:  # fmt: skip
    """Largest number of restarts optimised together whose predicted step peak stays within
    ``cap_mb`` (1 when even one restart does not fit, or when ``cap_mb`` is None)."""
    if cap_mb is None:
        return 1
    best = 1
    for batch in range(2, num_restarts + 1):
        peak = model.step_peak_mb(n, d, q, fantasies, batch_limit=batch, raw_samples=raw_samples)
        if peak <= cap_mb:
            best = batch
    return best


def fit_memory_model(rows: Sequence[Mapping[str, float | str]]) -> KGMemoryModel:
    """Non-negative least-squares fit of :class:`KGMemoryModel` to measured rows.

    Each row has ``kind`` (``grad`` / ``nograd`` probes, full ``step``), ``n``, ``dim``,
    ``fantasies``, ``batch``, ``init_batch``, ``fit_mb`` (after the fit) and ``peak_mb``;
    ``q`` is 1, ``raw_samples`` 1024 where a row does not say. The fitted footprint comes
    from ``fit_mb``, the phase coefficients from the probes' peak above it, and the step
    terms from what the full steps hold above their phases (relative error; zero without
    steps).
    """
    import numpy as np
    from scipy.optimize import nnls

    steps = [r for r in rows if r["kind"] == "step"]
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
    phases_only = KGMemoryModel(base_mb=float(base), n_mb=float(n_mb), **coef, nograd_share=0.0,
                                grad_share=0.0, step_draw=0.0)  # fmt: skip
    return _fit_step_terms(phases_only, steps)


def _fit_step_terms(model: KGMemoryModel, steps: Sequence[Mapping[str, float | str]]
                    ) -> KGMemoryModel:  # fmt: skip
    """The step terms fitting what full steps hold above their largest phase, on the relative
    error (a 100 MB miss matters more at 700 MB than at 5 GB), non-negative.

    Steps whose initial-condition phase is the larger fit ``nograd_share`` and ``step_draw``;
    steps whose gradient phase is (several restarts together) then fit ``grad_share``, which
    is ``nograd_share`` when no such step was measured."""
    import numpy as np
    from scipy.optimize import nnls

    parts = []
    for r in steps:
        n, d, f, b, ib, raw = _row_ints(r)
        peak = float(r["peak_mb"])
        grad = model.phase_mb(n, d, 1, f, b, grad=True)
        nograd = model.phase_mb(n, d, 1, f, ib, grad=False)
        parts.append((peak, model.fitted_mb(n), grad, nograd, draw_mb(d, 1, f, raw)))
    ic = [p for p in parts if p[3] >= p[2]]
    if not ic:
        return model
    design = np.array([[nograd / peak, draw / peak] for peak, _, _, nograd, draw in ic])
    target = np.array([(peak - fit - nograd) / peak for peak, fit, _, nograd, _ in ic])
    (nograd_share, step_draw), _ = nnls(design, target)
    opt = [p for p in parts if p[2] > p[3]]
    grad_share = nograd_share
    if opt:
        design = np.array([[grad / peak] for peak, _, grad, _, _ in opt])
        target = np.array([(peak - fit - grad - step_draw * draw) / peak
                           for peak, fit, grad, _, draw in opt])  # fmt: skip
        (grad_share,), _ = nnls(design, target)
    return replace(model, nograd_share=float(nograd_share), grad_share=float(grad_share),
                   step_draw=float(step_draw))  # fmt: skip


def _row_ints(row: Mapping[str, float | str]) -> tuple[int, int, int, int, int, int]:
    """(n, d, fantasies, batch, init_batch, raw_samples) of a measured row."""
    n, d, f, b = (int(float(row[k])) for k in ("n", "dim", "fantasies", "batch"))
    ib = int(float(row.get("init_batch", INIT_BATCH_LIMIT) or INIT_BATCH_LIMIT))
    raw = int(float(row.get("raw_samples", RAW_SAMPLES) or RAW_SAMPLES))
    return n, d, f, b, ib, raw


def predict_row(model: KGMemoryModel, row: Mapping[str, float | str]) -> float:
    """The model's peak for one measured row (probe or full step), q = 1."""
    n, d, f, b, ib, raw = _row_ints(row)
    if row["kind"] == "step":
        return model.step_peak_mb(n, d, 1, f, b, ib, raw)
    return model.fitted_mb(n) + model.phase_mb(n, d, 1, f, b, grad=row["kind"] == "grad")
