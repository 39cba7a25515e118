"""The attribution rule of a BO step's profile: the category and phase of a function or a stack.

Phases ``GP fit`` and ``TS paths`` exist for whole engine steps (:mod:`.method_step`); a qKG
step of :mod:`.step` starts from a fitted GP and draws no paths, so its rows never have them.

Kept apart from the profilers, so the rule (fixed before any profile ran) reads and tests alone."""

from __future__ import annotations

import re
import warnings
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: A pstats function key: (file, first line, name); C functions have file "~" and line 0.
Key = tuple[str, int, str]


def code_key(code: Any) -> Key:
    """The pstats key of a Python code object."""
    return (code.co_filename, code.co_firstlineno, code.co_name)


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
PHASE_FIT, PHASE_TS = "GP fit", "TS paths"
PHASES: dict[str, str] = {PHASE_INITIAL: "ic", PHASE_OPTIMISE: "opt", PHASE_REST: "rest"}
#: Phases of a whole engine step (GP fit and TS sample paths first: the outermost phase wins).
STEP_PHASES: dict[str, str] = {PHASE_FIT: "fit", PHASE_TS: "ts", **PHASES}
_FIT_NAMES = {("boexplore/bo/model.py", "fit_gp"), ("botorch/fit.py", "fit_gpytorch_mll"),
              ("boexplore/bo/fit_log.py", "fit_log_space")}  # fmt: skip

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
    """The category and phase of one profiled function, by identity (package docstring)."""
    path, _, name = key[0].replace("\\", "/"), key[1], key[2]
    if path == "~":  # a C function: pstats names it "<built-in method ...>" / "<method ...>"
        if "run_backward" in name:
            return Match(BACKWARD)
        if _SOLVE_BUILTIN.search(name):
            return Match(SOLVES)
        return Match()
    if path.endswith("torch/autograd/graph.py") and name == "_engine_run_backward":
        return Match(BACKWARD)  # the Python frame around run_backward (what a sampler sees)
    if any(path.endswith(f) and name == n for f, n in _FIT_NAMES):
        return Match(phase=PHASE_FIT)
    if "botorch/sampling/pathwise/" in path:
        return Match(phase=PHASE_TS)
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


def _mix(weights: Mapping[Key, float], ctx: Mapping[Key, Mapping[Context, float]]
         ) -> dict[Context, float]:  # fmt: skip
    """The callers' contexts mixed by the weights of their edges."""
    mixed: dict[Context, float] = defaultdict(float)
    for c, x in weights.items():
        for k, p in ctx[c].items():
            mixed[k] += x * p
    return dict(mixed)


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
    stack is walked on the call graph (package docstring). The values sum to the profile's total
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
            new = _apply(matches[f], _mix(weights[f], ctx))
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
            give(f, _mix(weights[f], ctx) or root, rest, None)
    return dict(out)


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
            m = cache[code] = classify(code_key(code))
        if cat is None and m.category is not None and (m.inherit or innermost):
            cat = m.category
        phase = m.phase or phase
        innermost = False
        frame = frame.f_back
    return cat or OTHER, phase or PHASE_REST
