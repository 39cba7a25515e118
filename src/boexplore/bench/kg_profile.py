"""Where one qKG step's CPU goes: the step profiled, its time attributed to categories.

``python -m boexplore.bench.kg_profile --problem hartmann6 --problem ackley60 --n 300
--profiler cprofile --profiler sample --out docs/kg-profile.csv`` profiles the steps;
``python -m boexplore.bench.kg_profile --report --out docs/kg-profile.csv`` renders
``docs/kg-profile.md`` from the table (issue 41, item 1).

The state is the one :mod:`boexplore.bench.kg` builds (``_state``: the first ``n`` points of the
state's Sobol design, the engine's GP fitted by the engine's code), and the step is that
benchmark's :func:`~boexplore.bench.kg.kg_step` (the engine's proposal code, ``KG_OPTIONS``,
``MAXITER`` L-BFGS-B iterations per restart) with the paper config's qKG settings
(``methods.kg`` and ``bo`` with ``bo.by_method.kg`` on top; :func:`paper_settings`). The step
runs on copies of the same GP: once plain (its CPU seconds are the step's cost), then once per
profiler, with the same seed (``same_point`` records that the profiled step chose the plain
step's point). Both profilers use the process CPU clock (robust to other jobs on the machine):

* ``cprofile`` (default): :mod:`cProfile`, every Python and C function call. It costs CPU per
  call, so Python-heavy code is inflated against BLAS / LAPACK time where calls are many
  (small n); the shares are of the profiled step.
* ``sample``: a stack sampler (:func:`sample_call`): every ``SAMPLE_INTERVAL`` CPU seconds the
  Python stack is read and the CPU since the previous sample goes to it. It costs little, but
  sees Python frames only: a C routine counts for the Python function that called it.

Attribution (rule fixed before any full-size profile ran). Every function is matched by
identity (module path and name, :func:`classify`):

* fantasy model: ``fantasize``, ``condition_on_observations``, ``get_fantasy_model``,
  ``get_fantasy_strategy`` (BoTorch / GPyTorch);
* posterior solves: the LAPACK factorisations and solves (Cholesky, triangular and Cholesky
  solves, QR), linear_operator's solve paths (``solve``, ``cholesky``, root and inverse-root
  decompositions, ``cat_rows``, its ``Solve`` function, ``psd_safe_cholesky``, ``stable_pinverse``);
* kernel: everything in ``gpytorch/kernels`` (``forward``, ``covar_dist``, ...) and the lazily
  evaluated kernel tensor;
* raw-sample initial conditions: ``gen_one_shot_kg_initial_conditions`` and
  ``gen_batch_initial_conditions``;
* autograd backward: the autograd engine (``run_backward`` and the Python frame around it),
  i.e. the gradient of every evaluation L-BFGS-B asks for -- a Python profiler sees it as one
  C call, so its share is not split over the forward categories (the innermost rule below
  still gives Python code it runs, e.g. linear_operator's ``Solve.backward``, to the solves);
* L-BFGS-B: the *own* time of scipy's optimiser and BoTorch's batched L-BFGS-B driver (and of
  the C routines they call directly), never the objective they call;
* other: the rest (BoTorch's acquisition code, posterior means, transforms, Python glue).

Each second goes to exactly one category: that of the innermost matching function on its call
stack (the function itself, else its nearest matching caller), so inclusive times are never
counted twice and the shares sum to 100 %. L-BFGS-B counts only where the optimiser itself
runs: the objective it calls takes the category above the optimiser. Each second also gets a
*phase*, the outermost of raw-sample initial conditions (``gen_*_initial_conditions``),
optimisation (``gen_candidates_*``) and the rest (acquisition set-up, the final evaluation of
the restarts). The sampler applies the rule to the whole stack of each sample
(:func:`stack_context`). cProfile keeps call edges, not stacks, so :func:`attribute` walks the
call graph: a function's self time (``tottime``) is split over its callers exactly (the
per-caller ``tottime`` of each edge), and the context a function passes on is the mix of its
callers' contexts weighted by their edges' inclusive time (gprof's rule: exact where a function
is reached from one context, an average over call sites where it is reached from several, as
``torch.nn.Module.__call__`` is; the sampler has no such average).

Evaluations: every call of ``qKnowledgeGradient.forward`` (cProfile's call count, which must
equal a wrapper's; the wrapper also records how many one-shot trees each call carried and
whether it was differentiated). Per evaluation, measured on the same GP outside the profiler: CPU seconds of one tree
with its gradient (an L-BFGS-B evaluation, ``batch_limit = 1``) and of one tree without (a raw
sample, evaluated ``init_batch_limit`` at a time), the flops of the same linear algebra
(counted from the shapes of the dense linear-algebra ops that run, :func:`count_flops`, and
from the formula of :func:`model_flops`), the achieved GFLOP/s, and the rate of one dense
matrix product of the dominant shape on the same machine. An evaluation is called
compute-bound when it reaches at least half that rate (:data:`COMPUTE_BOUND`), else
overhead-bound (Python, dispatch and memory traffic dominate).

Flop formula (one one-shot tree: ``q`` candidate points, ``F`` fantasies, ``n`` training
points, ``d`` inputs; ``m = n + q``, ``p = d + 2`` columns of GPyTorch's squared-distance
product), read off the ops BoTorch 0.18 / GPyTorch 1.15 / linear_operator 0.6 run:

* conditioning on the fantasies: ``8 n^2 q`` (posterior covariance at the q points through
  the cached inverse root, ``K^-1 U^T`` through the root, the new root's border ``B R``);
* inverse-root update of the conditioned ``m x m`` root (QR with Q, ``8/3 m^3``, and a
  triangular solve for its inverse, ``m^3``): ``11/3 m^3``;
* the fantasy model's mean cache, solved anew at every evaluation because the cache GPyTorch
  fills under one key is read under another (reported upstream, gpytorch issue 2669): the
  ``m x m`` kernel matrix (``2 m^2 p``), its ``F``-fold batch copy made dense by a product
  with an identity (``2 F m^3``), ``F`` Cholesky factorisations (``F m^3 / 3``) and solves
  (``2 F m^2``);
* the posterior at the ``F`` fantasy points: cross-kernel ``2 F m p``, variances through the
  cached inverse root ``2 F m^2``;
* with the gradient (backward): the mean-cache solve once more (``2 F m^3 + F m^3 / 3 +
  2 F m^2``), its bilinear derivative ``4 F m^2``, the kernel's ``4 m^2 p + 4 F m p`` and the
  conditioning's ``2 n^2 q``.

Terms linear in ``n`` or ``F`` alone are left out: the formula stays within 2 % of
:func:`count_flops` from n = 15 on (checked by the tests). A step's restarts and raw samples set how many
trees are evaluated, not the flops of one.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import cProfile
import math
import re
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boexplore.bench import kg
from boexplore.bench.kg import _kg, _state, kg_step
from boexplore.io import atomic_write_text

#: A pstats function key: (file, first line, name); C functions have file "~" and line 0.
Key = tuple[str, int, str]
DEFAULT_CONFIG = Path("config/paper.yaml")
#: L-BFGS-B iterations per restart of bench.kg's step (a config's qKG runs must use as many).
STEP_MAXITER = kg.MAXITER
DEFAULT_OUT = Path("docs/kg-profile.csv")
#: An evaluation reaching at least this share of the machine's dense-product rate is
#: compute-bound (rule fixed before any full-size profile ran).
COMPUTE_BOUND = 0.5
#: Repetitions of each per-evaluation timing (the median is reported).
EVAL_REPEATS = 3

FANTASY, SOLVES, KERNEL = "fantasy model", "posterior solves", "kernel"
INITIAL, BACKWARD, LBFGSB, OTHER = "raw-sample ICs", "autograd backward", "L-BFGS-B", "other"
#: Categories in report order, with their csv slugs.
CATEGORIES: dict[str, str] = {
    FANTASY: "fantasy",
    SOLVES: "solves",
    KERNEL: "kernel",
    INITIAL: "initial",
    BACKWARD: "backward",
    LBFGSB: "lbfgsb",
    OTHER: "other",
}
PHASE_INITIAL, PHASE_OPTIMISE, PHASE_REST = "initial conditions", "optimisation", "rest"
PHASES: dict[str, str] = {PHASE_INITIAL: "ic", PHASE_OPTIMISE: "opt", PHASE_REST: "rest"}

_FANTASY_NAMES = {"fantasize", "condition_on_observations", "get_fantasy_model",
                  "get_fantasy_strategy"}  # fmt: skip
_SOLVE_BUILTIN = re.compile(
    r"(?<![a-z])(cholesky|solve|linalg_qr|linalg_inv|linalg_eigh|linalg_svd)"
)
_SOLVE_FILES = ("linear_operator/functions/_solve.py", "linear_operator/functions/_inv_quad",
                "linear_operator/utils/cholesky.py", "linear_operator/utils/pinverse.py",
                "linear_operator/utils/linear_cg.py", "linear_operator/utils/lanczos.py")  # fmt: skip
_SOLVE_NAMES = {"solve", "_solve", "cholesky", "_cholesky", "_cholesky_solve", "cholesky_solve",
                "solve_triangular", "root_decomposition", "root_inv_decomposition", "inverse",
                "inv_quad", "inv_quad_logdet", "_inv_quad_logdet", "cat_rows"}  # fmt: skip
_KERNEL_FILES = ("gpytorch/kernels/", "gpytorch/lazy/lazy_evaluated_kernel_tensor.py",
                 "gpytorch/functions/rbf_covariance.py", "gpytorch/functions/matern_covariance.py")  # fmt: skip
_IC_NAMES = {"gen_one_shot_kg_initial_conditions", "gen_batch_initial_conditions"}
_LBFGSB_FILES = ("scipy/optimize/", "botorch/optim/batched_lbfgs_b.py")


@dataclass(frozen=True)
class Match:
    """What a function is: its category (None: none), whether its callees inherit it, its phase."""

    category: str | None = None
    inherit: bool = True
    phase: str | None = None


def classify(key: Key) -> Match:
    """The category and phase of one profiled function, by identity (module docstring)."""
    path, _, name = key[0].replace("\\", "/"), key[1], key[2]
    if path == "~":  # a C function: pstats names it "<built-in method ...>" / "<method ...>"
        if "run_backward" in name:
            return Match(BACKWARD)
        if _SOLVE_BUILTIN.search(name):
            return Match(SOLVES)
        return Match()
    if path.endswith("torch/autograd/graph.py") and name == "_engine_run_backward":
        return Match(BACKWARD)  # the Python frame around run_backward (what a sampler sees)
    if "botorch/optim/initializers.py" in path and name in _IC_NAMES:
        return Match(INITIAL, phase=PHASE_INITIAL)
    if "botorch/generation/gen.py" in path and name in ("gen_candidates_scipy",
                                                        "gen_candidates_torch"):  # fmt: skip
        return Match(phase=PHASE_OPTIMISE)
    if any(f in path for f in _LBFGSB_FILES):
        return Match(LBFGSB, inherit=False)
    if name in _FANTASY_NAMES and ("/botorch/" in path or "/gpytorch/" in path):
        return Match(FANTASY)
    if any(f in path for f in _KERNEL_FILES):
        return Match(KERNEL)
    if "/linear_operator/" in path and (any(f in path for f in _SOLVE_FILES)
                                        or name in _SOLVE_NAMES):  # fmt: skip
        return Match(SOLVES)
    return Match()


Context = tuple[str | None, str | None]  # (innermost inherited category, outermost phase)


def _apply(m: Match, dist: Mapping[Context, float]) -> dict[Context, float]:
    """The context a function passes to its callees, given the context it was called in."""
    out: dict[Context, float] = defaultdict(float)
    for (cat, phase), w in dist.items():
        cat = m.category if (m.category is not None and m.inherit) else cat
        out[(cat, phase if phase is not None else m.phase)] += w
    return dict(out)


def _breadth_first(stats: Mapping[Key, tuple]) -> list[Key]:
    """Functions from the profile's roots down, callers before callees (recursion aside)."""
    callees: dict[Key, list[Key]] = defaultdict(list)
    for f, row in stats.items():
        for c in row[4]:
            callees[c].append(f)
    order = [f for f, row in stats.items() if not any(c in stats for c in row[4])]
    seen = set(order)
    for f in order:  # grows while it is walked
        for g in sorted(callees[f], key=lambda g: -float(stats[g][3])):
            if g not in seen:
                seen.add(g)
                order.append(g)
    return order + [f for f in stats if f not in seen]


def attribute(stats: Mapping[Key, tuple], max_sweeps: int = 2000) -> dict[Context, float]:
    """Seconds per (category, phase) from cProfile stats (``pstats.Stats(...).stats``).

    Each function's self time goes to the innermost matching category on its call stack; the
    stack is walked on the call graph (module docstring). The values sum to the profile's total
    self time."""
    matches = {f: classify(f) for f in stats}
    root: dict[Context, float] = {(None, None): 1.0}
    weights: dict[Key, dict[Key, float]] = {}
    for f, row in stats.items():
        edges = {c: e for c, e in row[4].items() if c in stats and c != f}
        w = {c: float(e[3]) for c, e in edges.items()}
        if sum(w.values()) <= 0:
            w = {c: float(e[1]) for c, e in edges.items()}
        total = sum(w.values())
        weights[f] = {c: x / total for c, x in w.items()} if total > 0 else {}
    ctx = {f: _apply(matches[f], root) for f in stats}
    order = _breadth_first(stats)
    change = 0.0
    for _ in range(max_sweeps):
        change = 0.0
        for f in order:
            if not weights[f]:
                continue
            mixed: dict[Context, float] = defaultdict(float)
            for c, x in weights[f].items():
                for k, p in ctx[c].items():
                    mixed[k] += x * p
            new = _apply(matches[f], mixed)
            old = ctx[f]
            change = max(change, max(abs(new.get(k, 0.0) - old.get(k, 0.0))
                                     for k in set(new) | set(old)))  # fmt: skip
            ctx[f] = new
        if change < 1e-12:
            break
    if change >= 1e-9:
        warnings.warn(f"call-graph contexts still moving by {change:.2g} after {max_sweeps} "
                      "sweeps; the attribution is approximate", stacklevel=2)  # fmt: skip
    out: dict[Context, float] = defaultdict(float)

    def give(
        f: Key, caller_ctx: Mapping[Context, float], seconds: float, caller: Key | None
    ) -> None:
        m = matches[f]
        if caller is not None and f[0] == "~" and m.category is None:
            c = matches[caller]
            if c.category is not None and not c.inherit:  # a C routine of an own-time category
                m = Match(c.category, inherit=False)
        for (cat, phase), w in _apply(Match(phase=m.phase), caller_ctx).items():
            name = m.category if m.category is not None else cat
            out[(name or OTHER, phase or PHASE_REST)] += seconds * w

    for f, row in stats.items():
        rest = float(row[2])
        for c, e in row[4].items():
            if c in stats:
                give(f, ctx[c], float(e[2]), c)
                rest -= float(e[2])
        if rest > 1e-12:  # a root, or time the edges do not cover
            incoming = defaultdict(float)
            for c, x in weights[f].items():
                for k, p in ctx[c].items():
                    incoming[k] += x * p
            give(f, incoming or root, rest, None)
    return dict(out)


def forward_key() -> Key:
    """The pstats key of ``qKnowledgeGradient.forward`` itself (under BoTorch's decorators)."""
    from botorch.acquisition import qKnowledgeGradient

    stack: list[Any] = [qKnowledgeGradient.forward]
    while stack:
        fn = stack.pop()
        if getattr(fn, "__qualname__", "") == "qKnowledgeGradient.forward":
            code = fn.__code__
            return (code.co_filename, code.co_firstlineno, code.co_name)
        stack += [getattr(fn, "__wrapped__", None)]
        stack += [c.cell_contents for c in (getattr(fn, "__closure__", None) or ())]
        stack = [s for s in stack if callable(s)]
    raise LookupError("qKnowledgeGradient.forward not found under its decorators")


@dataclass
class Evaluations:
    """qKG forward calls seen by :func:`record_evaluations`: trees per call, differentiated?"""

    trees: list[int] = field(default_factory=list)
    grad: list[bool] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return len(self.trees)

    def count(self, grad: bool) -> int:
        return sum(t for t, g in zip(self.trees, self.grad, strict=True) if g == grad)


@contextlib.contextmanager
def record_evaluations() -> Iterator[Evaluations]:
    """Record every ``qKnowledgeGradient.forward`` call (trees in the batch, gradient on?)."""
    import torch
    from botorch.acquisition import qKnowledgeGradient

    seen = Evaluations()
    original = qKnowledgeGradient.forward

    def forward(self: Any, X: Any) -> Any:
        seen.trees.append(int(math.prod(X.shape[:-2])) if X.dim() > 2 else 1)
        seen.grad.append(bool(torch.is_grad_enabled() and X.requires_grad))
        return original(self, X)

    qKnowledgeGradient.forward = forward  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        qKnowledgeGradient.forward = original  # type: ignore[method-assign]


def profile_call(fn: Callable[[], Any]) -> tuple[Any, dict[Key, tuple], float]:
    """Run ``fn`` under cProfile (process CPU clock); (its result, the stats, CPU seconds)."""
    import pstats

    prof = cProfile.Profile(time.process_time)
    start = time.process_time()
    prof.enable()
    try:
        result = fn()
    finally:
        prof.disable()
    cpu = time.process_time() - start
    return result, dict(pstats.Stats(prof).stats), cpu  # type: ignore[attr-defined]


#: CPU seconds between two samples of :func:`sample_call`.
SAMPLE_INTERVAL = 0.002


def stack_context(frame: Any, cache: dict[Any, Match] | None = None) -> Context:
    """(category, phase) of a Python stack by the rule of :func:`attribute`, on the whole
    stack: the innermost inheriting category (an own-time one only in the innermost frame),
    the outermost phase."""
    cache = {} if cache is None else cache
    cat: str | None = None
    phase: str | None = None
    innermost = True
    while frame is not None:
        code = frame.f_code
        m = cache.get(code)
        if m is None:
            m = cache[code] = classify((code.co_filename, code.co_firstlineno, code.co_name))
        if cat is None and m.category is not None and (m.inherit or innermost):
            cat = m.category
        phase = m.phase or phase
        innermost = False
        frame = frame.f_back
    return cat or OTHER, phase or PHASE_REST


def sample_call(fn: Callable[[], Any], interval: float = SAMPLE_INTERVAL
                ) -> tuple[Any, dict[Context, float], float]:  # fmt: skip
    """Run ``fn`` under a CPU-time stack sampler; (its result, seconds by context, CPU seconds).

    Every ``interval`` CPU seconds (``ITIMER_PROF``) the main thread's Python stack is read and
    the CPU used since the previous sample goes to its context (:func:`stack_context`). A C
    call (BLAS, LAPACK, the autograd engine) counts for the Python frame that made it, since
    the handler runs when it returns; its time is not lost, it is weighed by the clock."""
    import signal

    if signal.getsignal(signal.SIGPROF) not in (signal.SIG_DFL, signal.SIG_IGN, None):
        raise RuntimeError("SIGPROF already has a handler; the sampler would replace it")
    seconds: dict[Context, float] = defaultdict(float)
    cache: dict[Any, Match] = {}
    start = time.process_time()
    last = [start, (OTHER, PHASE_REST)]

    def handler(signum: int, frame: Any) -> None:
        now = time.process_time()
        last[1] = stack_context(frame, cache)
        seconds[last[1]] += now - last[0]
        last[0] = now

    previous = signal.signal(signal.SIGPROF, handler)
    signal.setitimer(signal.ITIMER_PROF, interval, interval)
    try:
        result = fn()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0.0)
        signal.signal(signal.SIGPROF, previous)
    end = time.process_time()
    seconds[last[1]] += end - last[0]  # the tail after the last sample
    return result, dict(seconds), end - start


# --- flops -------------------------------------------------------------------------------


def _batch(shape: Sequence[int]) -> int:
    return int(math.prod(shape))


def _op_flops(name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> float | None:
    """Flops of one dense linear-algebra aten op from its shapes (None: not such an op)."""
    t = [a for a in args if hasattr(a, "shape")]
    if name == "mm":
        (a, k), (_, b) = t[0].shape, t[1].shape
        return 2.0 * a * k * b
    if name in ("bmm", "baddbmm"):
        x, y = (t[0], t[1]) if name == "bmm" else (t[1], t[2])
        return 2.0 * x.shape[0] * x.shape[1] * x.shape[2] * y.shape[2]
    if name == "addmm":
        (a, k), (_, b) = t[1].shape, t[2].shape
        return 2.0 * a * k * b
    if name in ("mv", "addmv"):
        mat = t[0] if name == "mv" else t[1]
        return 2.0 * mat.shape[0] * mat.shape[1]
    if name in ("dot", "vdot"):
        return 2.0 * t[0].shape[0]
    if name in ("linalg_cholesky_ex", "cholesky"):
        m = t[0].shape[-1]
        return _batch(t[0].shape[:-2]) * m**3 / 3.0
    if name == "cholesky_solve":
        rhs, chol = t[0], t[1]
        m, k = rhs.shape[-2], rhs.shape[-1]
        batch = _batch(np.broadcast_shapes(tuple(rhs.shape[:-2]), tuple(chol.shape[:-2])))
        return batch * 2.0 * m * m * k
    if name == "linalg_solve_triangular":
        a, b = t[0], t[1]
        left = bool(kwargs.get("left", args[3] if len(args) > 3 else True))
        m, k = a.shape[-1], (b.shape[-1] if left else b.shape[-2])
        batch = _batch(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
        return batch * float(m) * m * k
    if name == "triangular_solve":
        b, a = t[0], t[1]
        batch = _batch(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
        return batch * float(a.shape[-1]) ** 2 * b.shape[-1]
    if name == "linalg_qr":
        r, c = t[0].shape[-2], t[0].shape[-1]
        k = min(r, c)
        flops = 2.0 * max(r, c) * k * k - 2.0 * k**3 / 3.0  # Householder (geqrf)
        mode = kwargs.get("mode", args[1] if len(args) > 1 else "reduced")
        if mode != "r":  # Q formed explicitly (orgqr: M x N from K reflectors)
            cols = r if mode == "complete" else k
            flops += 4.0 * r * cols * k - 2.0 * (r + cols) * k * k + 4.0 * k**3 / 3.0
        return _batch(t[0].shape[:-2]) * flops
    if name in ("linalg_inv_ex", "linalg_inv"):
        m = t[0].shape[-1]
        return _batch(t[0].shape[:-2]) * 2.0 * m**3
    if name in ("linalg_lu_factor_ex", "linalg_lu_factor"):
        m = t[0].shape[-1]
        return _batch(t[0].shape[:-2]) * 2.0 * m**3 / 3.0
    if name in ("_linalg_solve_ex", "linalg_solve_ex", "linalg_solve"):
        a, b = t[0], t[1]
        m = a.shape[-1]
        k = b.shape[-1] if b.dim() == a.dim() else 1
        return _batch(a.shape[:-2]) * (2.0 * m**3 / 3.0 + 2.0 * m * m * k)
    return None


#: aten ops counted as dense linear algebra by :func:`count_flops`.
COUNTED_OPS = ("mm", "bmm", "baddbmm", "addmm", "mv", "addmv", "dot", "vdot",
               "linalg_cholesky_ex", "cholesky", "cholesky_solve", "linalg_solve_triangular",
               "triangular_solve", "linalg_qr", "linalg_inv_ex", "linalg_inv",
               "linalg_lu_factor_ex", "linalg_lu_factor", "_linalg_solve_ex", "linalg_solve_ex",
               "linalg_solve")  # fmt: skip
_LINALG_LIKE = re.compile(
    r"^(linalg_|_linalg_)|solve|cholesky|^(geqrf|orgqr|ormqr|inverse|addbmm|"
    r"addr|outer|ger|kron|tensordot|logdet|slogdet|lu_unpack)$"
)


def count_flops(fn: Callable[[], Any]) -> tuple[float, dict[str, float], set[str]]:
    """Run ``fn`` and count the flops of its dense linear algebra from the ops' shapes.

    Every aten op that runs (forward and backward) passes a dispatch mode; (total flops, flops
    per op name, names of linear-algebra-like ops it has no rule for)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    per_op: dict[str, float] = defaultdict(float)
    unknown: set[str] = set()

    class _Count(TorchDispatchMode):
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            kwargs = kwargs or {}
            name = func.overloadpacket.__name__
            flops = _op_flops(name, args, kwargs) if name in COUNTED_OPS else None
            if flops is not None:
                per_op[name] += flops
            elif _LINALG_LIKE.search(name) and not name.endswith("_backward"):
                unknown.add(name)
            return func(*args, **kwargs)

    with _Count():
        fn()
    return float(sum(per_op.values())), dict(per_op), unknown


def model_flops(n: int, fantasies: int, d: int, q: int = 1, grad: bool = False,
                fantasy_cache: bool = False) -> dict[str, float]:  # fmt: skip
    """Flops of one qKG evaluation of one one-shot tree by term (module docstring formula).
    ``fantasy_cache``: the mean cache is the bordered solve GPyTorch already made
    (``bo.kg_fantasy_cache``), ``4 F n q`` flops; its gradient adds ``8 F n q`` and the
    backward pass through the conditioned ``m x m`` kernel matrix, ``2 m^2 p + 3 F m p``
    (read off the counted ops at n = 15 and 60; within 2 % there)."""
    F, m, p = float(fantasies), float(n + q), float(d + 2)
    mean_cache = (
        4.0 * F * n * q
        if fantasy_cache
        else (2.0 * m * m * p + 2.0 * F * m**3 + F * m**3 / 3.0 + 2.0 * F * m * m)
    )
    terms = {
        "conditioning": 8.0 * n * n * q,
        "inverse root": 11.0 / 3.0 * m**3,
        "mean cache": mean_cache,
        "prediction": 2.0 * F * m * p + 2.0 * F * m * m,
    }
    if grad:
        terms["conditioning"] += 2.0 * n * n * q
        terms["mean cache"] += (
            8.0 * F * n * q + 2.0 * m * m * p + 3.0 * F * m * p
            if fantasy_cache
            else (2.0 * F * m**3 + F * m**3 / 3.0 + 6.0 * F * m * m + 4.0 * m * m * p)
        )
        terms["prediction"] += 4.0 * F * m * p
    return terms


# --- one state ---------------------------------------------------------------------------


def paper_settings(config: str | Path = DEFAULT_CONFIG, method: str = "kg") -> dict[str, int]:
    """The qKG step's settings in a config: fantasies from ``methods.<method>``, restarts, raw
    samples and L-BFGS-B iterations (``maxiter``) from ``bo`` with ``bo.by_method.<method>`` on
    top.

    Refuses a config whose qKG runs differ from the step :func:`~boexplore.bench.kg.kg_step`
    takes in a way that changes the step (iterations, restart batching, warm start, device)."""
    from boexplore.bo.methods import parse_method
    from boexplore.bo.settings import BOSettings
    from boexplore.workflow_config import load_config, method_bo_settings

    cfg = load_config(config)
    spec = parse_method(cfg["methods"][method])
    if spec.base != "kg" or spec.q != 1 or spec.raasp or spec.trust_region:
        raise ValueError(f"methods.{method} is {cfg['methods'][method]!r}, not a plain qKG")
    bo = method_bo_settings(cfg, method)
    extra = dict(bo.pop("extra", {}) or {})
    bo.pop("torch_threads", None)
    settings = BOSettings.from_kwargs(**{**bo, **extra})
    differs = {k: v for k, v in (("acq_maxiter", STEP_MAXITER), ("kg_memory_cap_mb", None),
                                 ("kg_warm_start", False), ("device", "cpu"))
               if getattr(settings, k) != v}  # fmt: skip
    if differs:
        got = {k: getattr(settings, k) for k in differs}
        raise ValueError(f"{config}: the qKG runs use {got}; bench.kg's step uses {differs}")
    return {"fantasies": int(spec.params["fantasies"]), "num_restarts": settings.num_restarts,
            "raw_samples": settings.raw_samples, "maxiter": settings.acq_maxiter,
            "fantasy_cache": int(settings.kg_fantasy_cache)}  # fmt: skip


def resolve_problem(text: str, config: str | Path = DEFAULT_CONFIG) -> tuple[str, int]:
    """``(name, dim)`` of a problem: a label of the config's ``problems``, ``NAME:DIM`` or
    ``NAMEDIM`` (e.g. ``ackley60``)."""
    from boexplore.problems import get_problem
    from boexplore.workflow_config import read_yaml

    problems = (read_yaml(config) or {}).get("problems", {}) if Path(config).exists() else {}
    if text in problems:
        return str(problems[text]["name"]), int(problems[text]["dim"])
    name, sep, dim = text.partition(":")
    if not sep:
        found = re.fullmatch(r"(.*?)(\d+)", text)
        if found is None:
            raise ValueError(f"problem {text!r}: a config label, NAME:DIM or NAMEDIM")
        name, dim = found.group(1), found.group(2)
    get_problem(name, int(dim))  # refuses an unknown problem
    return name, int(dim)


def evaluation_costs(model: Any, bounds: Any, fantasies: int, seed: int,
                     repeats: int = EVAL_REPEATS, fantasy_cache: bool = False
                     ) -> dict[str, float]:  # fmt: skip
    """CPU seconds and counted flops of one tree's evaluation with and without its gradient,
    and the CPU rate of one dense product of the dominant shape (module docstring)."""
    import torch

    from boexplore.bo.acquisition.kg_memory import INIT_BATCH_LIMIT

    acqf = _kg(model, fantasies, seed, fantasy_cache)
    d = int(bounds.shape[-1])
    gen = torch.Generator().manual_seed(seed)
    lo, hi = bounds[0], bounds[1]

    def trees(k: int) -> Any:
        u = torch.rand(k, 1 + fantasies, d, generator=gen, dtype=bounds.dtype)
        return lo + (hi - lo) * u

    X_grad, X_raw = trees(1), trees(INIT_BATCH_LIMIT)

    def grad_eval() -> None:
        X = X_grad.clone().requires_grad_(True)
        torch.autograd.grad(acqf(X).sum(), X)

    def raw_eval() -> None:
        with torch.no_grad():
            acqf(X_raw)

    def cpu(fn: Callable[[], Any]) -> float:
        times = []
        for _ in range(repeats):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
        return float(np.median(times))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grad_eval()  # the model's caches, as in the step
        grad_s, raw_s = cpu(grad_eval), cpu(raw_eval) / INIT_BATCH_LIMIT
        grad_flops, _, unknown_g = count_flops(grad_eval)
        raw_flops, _, unknown_r = count_flops(raw_eval)
    m = int(model.train_inputs[0].shape[-2]) + 1
    A = torch.rand(m, m, dtype=torch.float64, generator=gen)
    B = torch.rand(m, m * max(fantasies, 1), dtype=torch.float64, generator=gen)
    gemm_s = min(_cpu_once(lambda: A @ B) for _ in range(repeats))
    gemm_flops = 2.0 * m * m * m * max(fantasies, 1)
    return {"eval_grad_cpu_s": grad_s, "eval_raw_cpu_s": raw_s,
            "flops_grad_counted": grad_flops, "flops_raw_counted": raw_flops / INIT_BATCH_LIMIT,
            "gemm_gflops": gemm_flops / max(gemm_s, 1e-9) / 1e9,
            "uncounted_ops": " ".join(sorted(unknown_g | unknown_r))}  # fmt: skip


def _cpu_once(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _versions() -> dict[str, str]:
    import botorch
    import gpytorch
    import linear_operator
    import scipy
    import torch

    return {"torch": torch.__version__, "botorch": botorch.__version__,
            "gpytorch": gpytorch.__version__, "linear_operator": linear_operator.__version__,
            "scipy": scipy.__version__}  # fmt: skip


#: Profilers of a step: cProfile with the call-graph walk, or the stack sampler.
PROFILERS = ("cprofile", "sample")


@dataclass
class StepProfile:
    """One profiled qKG step: its point, CPU, evaluations and attribution."""

    X: Any
    cpu_s: float
    evaluations: Evaluations
    calls: int  # qKnowledgeGradient.forward calls
    seconds: dict[Context, float]  # by (category, phase)
    stats: dict[Key, tuple] = field(default_factory=dict)  # cProfile's, when it ran

    @property
    def total_s(self) -> float:
        """The attributed seconds (what the shares divide): cProfile's total self time, or
        the sampled CPU."""
        return float(sum(self.seconds.values()))


def profile_step(model: Any, bounds: Any, settings: Mapping[str, int], seed: int,
                 profiler: str = "cprofile") -> StepProfile:  # fmt: skip
    """:func:`~boexplore.bench.kg.kg_step` under ``profiler`` with its time attributed.

    cProfile: its qKG calls are counted twice (the profile's call count and a wrapper, which
    must agree). The sampler: by the wrapper."""
    step = lambda: kg_step(model, bounds, settings, seed)  # noqa: E731
    with record_evaluations() as seen:
        if profiler == "cprofile":
            (X, _), stats, cpu = profile_call(step)
        elif profiler == "sample":
            (X, _), seconds, cpu = sample_call(step)
        else:
            raise ValueError(f"profiler {profiler!r}: one of {PROFILERS}")
    if profiler == "sample":
        return StepProfile(X, cpu, seen, seen.calls, seconds)
    fkey = forward_key()
    calls = int(stats[fkey][1]) if fkey in stats else 0
    if calls != seen.calls:
        raise RuntimeError(
            f"the profile counts {calls} qKG forward calls, the wrapper {seen.calls}"
        )
    return StepProfile(X, cpu, seen, calls, attribute(stats), stats)


def profile_state(problem: str, dim: int, n: int, seed: int, settings: Mapping[str, int],
                  baseline: bool = True, profilers: Sequence[str] = ("cprofile",)
                  ) -> list[dict[str, Any]]:  # fmt: skip
    """One row per profiler: the plain step's CPU, the profiled step's seconds by category
    and phase, its evaluations, and the per-evaluation CPU and flops (module docstring)."""
    model, bounds = _state(problem, dim, n, seed)
    fresh = copy.deepcopy(model)  # every run starts from the fitted GP with empty caches
    X_plain, step_cpu = None, float("nan")
    if baseline:
        X_plain, step_cpu = kg_step(copy.deepcopy(fresh), bounds, settings, seed)
    F, q = int(settings["fantasies"]), 1
    profiles = {p: profile_step(copy.deepcopy(fresh), bounds, settings, seed, p) for p in profilers}
    kept = bool(settings.get("fantasy_cache", 0))
    costs = evaluation_costs(fresh, bounds, F, seed, fantasy_cache=kept)
    grad_model = model_flops(n, F, dim, q, True, kept)
    raw_model = model_flops(n, F, dim, q, False, kept)
    return [_row(problem, dim, n, seed, settings, p, prof, step_cpu, X_plain, costs, grad_model,
                 raw_model) for p, prof in profiles.items()]  # fmt: skip


def _row(problem: str, dim: int, n: int, seed: int, settings: Mapping[str, int], profiler: str,
         prof: StepProfile, step_cpu: float, X_plain: Any, costs: Mapping[str, Any],
         grad_model: Mapping[str, float], raw_model: Mapping[str, float]) -> dict[str, Any]:  # fmt: skip
    seconds, seen = prof.seconds, prof.evaluations
    row: dict[str, Any] = {
        "problem": problem, "dim": dim, "n": n, "seed": seed, "profiler": profiler,
        **{k: int(settings[k]) for k in ("fantasies", "num_restarts", "raw_samples")},
        "fantasy_cache": int(settings.get("fantasy_cache", 0)), "maxiter": kg.MAXITER, "step_cpu_s": step_cpu, "profiled_cpu_s": prof.cpu_s,
        "profiled_total_s": prof.total_s,
        # the profiled step chose the plain step's point: the same computation was profiled
        "same_point": None if X_plain is None else bool((X_plain == prof.X).all()),
    }  # fmt: skip
    for cat, slug in CATEGORIES.items():
        row[f"s_{slug}"] = sum(v for (c, _), v in seconds.items() if c == cat)
    for phase, pslug in PHASES.items():
        row[f"s_phase_{pslug}"] = sum(v for (_, p), v in seconds.items() if p == phase)
        for cat, slug in CATEGORIES.items():
            row[f"s_{slug}_{pslug}"] = seconds.get((cat, phase), 0.0)
    row |= {
        "acqf_calls": prof.calls,
        "trees_grad": seen.count(True),
        "trees_raw": seen.count(False),
    }
    row |= dict(costs) | {
        "flops_grad_model": sum(grad_model.values()),
        "flops_raw_model": sum(raw_model.values()),
        "flops_grad_mean_cache": grad_model["mean cache"],
        "gflops_grad": costs["flops_grad_counted"] / max(costs["eval_grad_cpu_s"], 1e-9) / 1e9,
        "gflops_raw": costs["flops_raw_counted"] / max(costs["eval_raw_cpu_s"], 1e-9) / 1e9,
    }  # fmt: skip
    row["evals_cpu_s"] = (row["trees_grad"] * costs["eval_grad_cpu_s"]
                          + row["trees_raw"] * costs["eval_raw_cpu_s"])  # fmt: skip
    return row | _versions()


# --- table and report --------------------------------------------------------------------

KEY = ["problem", "dim", "n", "seed", "fantasy_cache", "profiler"]


def merge(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``old`` with the rows of ``new`` replacing those with the same key (rows made before
    ``fantasy_cache`` was a column ran without it)."""
    if not len(old):
        return new.reset_index(drop=True)
    if "fantasy_cache" not in old.columns:
        old = old.assign(fantasy_cache=0)
    keep = ~old.set_index(KEY).index.isin(new.set_index(KEY).index)
    return pd.concat([old[keep], new], ignore_index=True)


def _pct(x: float, total: float) -> str:
    return f"{100.0 * x / total:.1f}" if total > 0 else "—"


def findings_lines(rows: pd.DataFrame) -> list[str]:
    """What the rows say, per (problem, n) and profiler that ran on both paths: the plain
    step's largest category and the mean cache's share of its formula flops, and the step and
    per-tree CPU with the fantasy mean cache kept against without (numbers from ``rows``)."""
    out: list[str] = []
    for (problem, dim, n, profiler), g in rows.groupby(["problem", "dim", "n", "profiler"]):
        plain, kept = g[g["fantasy_cache"] == 0], g[g["fantasy_cache"] == 1]
        if not len(plain):
            continue
        p = plain.iloc[-1]
        shares = {
            c: float(p[f"s_{s}"]) / float(p["profiled_total_s"]) for c, s in CATEGORIES.items()
        }
        top = max(shares, key=shares.__getitem__)
        text = (f"- {problem} (d = {dim}), n = {n}, {profiler}: without the cache the largest "
                f"category is {top} ({shares[top]:.0%} of the profiled step); by the formula the "
                "fantasy mean cache, solved anew at each evaluation, is "
                f"{p['flops_grad_mean_cache'] / p['flops_grad_model']:.0%} of a gradient "
                "evaluation's flops.")  # fmt: skip
        if len(kept):
            k = kept.iloc[-1]
            step = (f"the plain step {p['step_cpu_s']:.0f} → {k['step_cpu_s']:.0f} CPU s "
                    f"({p['step_cpu_s'] / k['step_cpu_s']:.1f}× faster), "
                    if np.isfinite(p["step_cpu_s"]) and np.isfinite(k["step_cpu_s"]) else "")  # fmt: skip
            ks = {
                c: float(k[f"s_{s}"]) / float(k["profiled_total_s"]) for c, s in CATEGORIES.items()
            }
            ktop = max(ks, key=ks.__getitem__)
            text += (f" With it kept: {step}one gradient evaluation "
                     f"{p['eval_grad_cpu_s']:.3g} → {k['eval_grad_cpu_s']:.3g} CPU s "
                     f"({p['eval_grad_cpu_s'] / k['eval_grad_cpu_s']:.1f}×); the largest category "
                     f"is then {ktop} ({ks[ktop]:.0%}).")  # fmt: skip
        out.append(text)
    return ["", "## Findings", "", *out] if out else []


def render_markdown(rows: pd.DataFrame, paper: Mapping[str, int] | None = None,
                    csv_name: str = "kg-profile.csv") -> str:  # fmt: skip
    """docs/kg-profile.md from the table (every number comes from ``rows``)."""
    source = f"[{csv_name}]({csv_name})" if len(rows) else f"`{csv_name}` (no rows yet)"
    lines = ["# Where a qKG step's CPU goes (profile)", "",
             f"Generated by `python -m boexplore.bench.kg_profile --report` from {source}; the "
             "method, the attribution rule and the flop formula are in the docstring of "
             "`boexplore.bench.kg_profile` (issue 41, item 1).", "",
             "Run it (rows with the same problem, n, seed and profiler are replaced, so one "
             "problem at a time is fine):", "",
             "```bash",
             "nice -n 19 python -m boexplore.bench.kg_profile --problem hartmann6 --n 300 "
             "--profiler cprofile --profiler sample --out docs/kg-profile.csv",
             "nice -n 19 python -m boexplore.bench.kg_profile --problem ackley60 --n 300 "
             "--profiler cprofile --profiler sample --out docs/kg-profile.csv",
             "# BoTorch's own path (without bo.kg_fantasy_cache), for the comparison:",
             "nice -n 19 python -m boexplore.bench.kg_profile --problem hartmann6 --n 300 "
             "--profiler sample --fantasy-cache off --no-baseline --out docs/kg-profile.csv",
             "python -m boexplore.bench.kg_profile --report --out docs/kg-profile.csv",
             "```", "",
             "Each (problem, n) fits the engine's GP on a Sobol state of n points and runs one "
             "qKG step with the paper config's qKG settings on one torch thread: once plain, "
             "then once per profiler, so a row costs a step plus the profiler's overhead, and "
             "the plain step one more (`--no-baseline` skips it; one step's CPU at paper scale: "
             "[kg-memory.md](kg-memory.md)). cProfile sees every call but inflates Python-heavy "
             "code; the sampler costs little but sees Python frames only (a C routine counts "
             "for its Python caller). Shares are of the profiled step."]  # fmt: skip
    full = rows
    if paper is not None and len(rows):
        match = np.ones(len(rows), dtype=bool)
        for k, v in paper.items():
            match &= rows[k].to_numpy() == v
        full = rows[match]
    if not len(full):
        lines += ["", "!!! note \"Not run yet\"",
                  "    The full-size profile (paper settings, n = 300) has not been run: this "
                  "page has no measured numbers yet."]  # fmt: skip
    if not len(rows):
        return "\n".join(lines) + "\n"
    if paper is not None and len(full) < len(rows):
        lines += ["", "Rows marked † ran with other settings than the paper config's "
                  f"(paper: {paper['fantasies']} fantasies, {paper['num_restarts']} restarts, "
                  f"{paper['raw_samples']} raw samples, {paper['maxiter']} L-BFGS-B iterations "
                  "per restart, fantasy mean cache "
                  f"{'kept' if paper['fantasy_cache'] else 'solved anew'}). \"(cache kept)\": "
                  "the step ran with `bo.kg_fantasy_cache` (the fantasy model's mean cache taken "
                  "from GPyTorch's bordered solve, `bo/acquisition/fantasy_cache.py`)."]  # fmt: skip

    def head(r: Any) -> str:
        mark = "" if paper is None or all(getattr(r, k) == v for k, v in paper.items()) else " †"
        path = " (cache kept)" if r.fantasy_cache else ""
        return f"| {r.problem}{mark} | {r.dim} | {r.n} | {r.profiler}{path} |"

    cats = list(CATEGORIES.items())
    lines += ["", "## Share of the profiled step by category", "",
              "Innermost matching category of each second (CPU clock); the shares of a row sum "
              "to 100 %. Plain step: the same step without a profiler.", "",
              "| problem | d | n | profiler | F / restarts / raw / iterations | plain step CPU s "
              "| profiled CPU s | " + " | ".join(f"{c} %" for c, _ in cats) + " |",
              "|---|---|---|---|---|---|---|" + "---|" * len(cats)]  # fmt: skip
    for r in rows.itertuples(index=False):
        total = float(r.profiled_total_s)
        shares = " | ".join(_pct(float(getattr(r, f"s_{s}")), total) for _, s in cats)
        step = "—" if pd.isna(r.step_cpu_s) else f"{r.step_cpu_s:.1f}"
        lines.append(f"{head(r)} {r.fantasies} / {r.num_restarts} / {r.raw_samples} / "
                     f"{r.maxiter} | {step} | {r.profiled_cpu_s:.1f} | {shares} |")  # fmt: skip
    lines += ["", "## Share by phase", "",
              "Outermost phase: raw-sample initial conditions (`gen_*_initial_conditions`), "
              "L-BFGS-B optimisation (`gen_candidates_*`), the rest; and the category shares "
              "within the optimisation phase.", "",
              "| problem | d | n | profiler | initial conditions % | optimisation % | rest % | "
              "in optimisation: " + ", ".join(c for c, _ in cats) + " (%) |",
              "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows.itertuples(index=False):
        total, opt = float(r.profiled_total_s), float(r.s_phase_opt)
        inner = ", ".join(_pct(float(getattr(r, f"s_{s}_opt")), opt) for _, s in cats)
        lines.append(f"{head(r)} {_pct(r.s_phase_ic, total)} | {_pct(opt, total)} | "
                     f"{_pct(r.s_phase_rest, total)} | {inner} |")  # fmt: skip
    lines += ["", "## Per acquisition evaluation", "",
              "qKG calls and trees: the profiled step's (trees with gradient: L-BFGS-B; "
              "without: raw samples and the final values). CPU per tree: measured outside the "
              "profiler on the same GP (median of 3); evaluations: trees × CPU per tree, as a "
              "share of the plain step. GFLOP per tree: counted from the shapes of the dense "
              "linear algebra that ran / the formula beside it; mean cache: the formula's "
              "share for the fantasy mean cache solved anew at each evaluation. Bound: "
              f"compute-bound when the evaluation reaches ≥ {COMPUTE_BOUND:.0%} of a dense "
              "product's rate of the dominant shape on the same machine, else overhead-bound.",
              "", "| problem | d | n | profiler | qKG calls | trees grad / raw | CPU s per grad "
              "tree | CPU s per raw tree | evaluations % of plain step | GFLOP per grad tree "
              "(counted / formula) | mean cache % | GFLOP/s grad / raw | dense product GFLOP/s "
              "| bound |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows.itertuples(index=False):
        ratio = float(r.gflops_grad) / float(r.gemm_gflops) if r.gemm_gflops > 0 else 0.0
        bound = "compute" if ratio >= COMPUTE_BOUND else "overhead"
        evals = "—" if pd.isna(r.step_cpu_s) else _pct(r.evals_cpu_s, r.step_cpu_s)
        lines.append(
            f"{head(r)} {r.acqf_calls} | {r.trees_grad} / {r.trees_raw} | "
            f"{r.eval_grad_cpu_s:.4g} | {r.eval_raw_cpu_s:.4g} | {evals} | "
            f"{r.flops_grad_counted / 1e9:.4g} / {r.flops_grad_model / 1e9:.4g} | "
            f"{_pct(r.flops_grad_mean_cache, r.flops_grad_model)} | {r.gflops_grad:.3g} / "
            f"{r.gflops_raw:.3g} | {r.gemm_gflops:.3g} | {bound} ({ratio:.0%}) |"
        )
    lines += findings_lines(rows)
    v = rows.iloc[-1]
    lines += ["", f"Libraries (last row): torch {v.torch}, BoTorch {v.botorch}, GPyTorch "
              f"{v.gpytorch}, linear_operator {v.linear_operator}, SciPy {v.scipy}."]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", action="append", default=None,
                        help="a config label (hartmann6), NAME:DIM or NAMEDIM (ackley60); "
                             "repeat for several")  # fmt: skip
    parser.add_argument("--n", type=int, action="append", default=None,
                        help="state size (repeat for several; default 300)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="state (and optimiser) seed")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG,
                        help="config whose qKG settings the step uses")  # fmt: skip
    for name in ("fantasies", "num-restarts", "raw-samples"):
        parser.add_argument(f"--{name}", type=int, default=None,
                            help="override the config's value (small test runs)")  # fmt: skip
    parser.add_argument(
        "--fantasy-cache",
        choices=("on", "off"),
        default=None,
        help="override the config's bo.kg_fantasy_cache (profile both paths)",
    )
    parser.add_argument("--profiler", action="append", choices=PROFILERS, default=None,
                        help="cprofile (default; call-graph walk) and/or sample (stack sampler); "
                             "one row each")  # fmt: skip
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the plain (unprofiled) step (halves the run)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the csv (rows are merged); the report is its .md sibling")  # fmt: skip
    parser.add_argument("--report", action="store_true",
                        help="render the .md from the csv and run nothing")  # fmt: skip
    args = parser.parse_args(argv)
    paper = paper_settings(args.config)
    md = args.out.with_suffix(".md")
    rows = pd.read_csv(args.out) if args.out.exists() else pd.DataFrame(columns=KEY)
    if "fantasy_cache" not in rows.columns:  # rows made before it was a column ran without
        rows = rows.assign(fantasy_cache=0)
    if args.report:
        atomic_write_text(render_markdown(rows, paper, args.out.name), md)
        print(f"wrote {md}")
        return 0
    if not args.problem:
        parser.error("--problem is required (or --report)")
    import torch

    torch.set_num_threads(1)
    settings = dict(paper)
    for key in ("fantasies", "num_restarts", "raw_samples"):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    if args.fantasy_cache is not None:
        settings["fantasy_cache"] = int(args.fantasy_cache == "on")
    problems = [resolve_problem(p, args.config) for p in args.problem]
    for name, dim in problems:
        for n in args.n or [300]:
            new = profile_state(name, dim, n, args.seed, settings, not args.no_baseline,
                                args.profiler or ["cprofile"])  # fmt: skip
            rows = merge(rows, pd.DataFrame(new))
            atomic_write_text(rows.to_csv(index=False), args.out)
            atomic_write_text(render_markdown(rows, paper, args.out.name), md)
            for row in new:
                shares = ", ".join(
                    f"{c} {_pct(row[f's_{s}'], row['profiled_total_s'])} %"
                    for c, s in CATEGORIES.items()
                )
                print(f"{name} d={dim} n={n} {row['profiler']}: step {row['step_cpu_s']:.1f} s, "
                      f"profiled {row['profiled_cpu_s']:.1f} s ({shares})", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
