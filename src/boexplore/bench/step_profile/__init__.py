"""Where a BO step's CPU goes: the step profiled, its time attributed to categories.

Two front-ends share the profilers (:mod:`.profilers`) and the attribution rule (:mod:`.rules`):
the qKG step on a fitted GP (below; docs/kg-profile.md) and a whole engine step -- the GP fit
and any method's proposal -- (:mod:`.method_step`, :mod:`.method_report`; ``python -m
boexplore.bench.step_profile methods ...``; docs/step-profile.md).

The qKG step:

``python -m boexplore.bench.step_profile --problem hartmann6 --problem ackley60 --n 300
--profiler cprofile --profiler sample --out docs/kg-profile.csv`` profiles the steps;
``python -m boexplore.bench.step_profile --report --out docs/kg-profile.csv`` renders
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

Modules: :mod:`.rules` (the attribution rule), :mod:`.profilers`, :mod:`.flops` (counted and by
formula), :mod:`.step` (one state's rows), :mod:`.report` (the table and the page); the command,
:func:`main`, is here (``python -m`` runs it through ``__main__``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from boexplore.bench.step_profile.flops import COUNTED_OPS, count_flops, model_flops
from boexplore.bench.step_profile.profilers import (
    SAMPLE_INTERVAL,
    Evaluations,
    forward_key,
    profile_call,
    record_evaluations,
    sample_call,
)
from boexplore.bench.step_profile.report import (
    COMPUTE_BOUND,
    KEY,
    _pct,
    findings_lines,
    merge,
    render_markdown,
    with_cache_column,
)
from boexplore.bench.step_profile.rules import (
    BACKWARD,
    CATEGORIES,
    FANTASY,
    INITIAL,
    KERNEL,
    LBFGSB,
    OTHER,
    PHASE_INITIAL,
    PHASE_OPTIMISE,
    PHASE_REST,
    PHASES,
    SOLVES,
    Context,
    Key,
    Match,
    attribute,
    classify,
    stack_context,
)
from boexplore.bench.step_profile.step import (
    DEFAULT_CONFIG,
    EVAL_REPEATS,
    PROFILERS,
    STEP_MAXITER,
    StepProfile,
    evaluation_costs,
    paper_settings,
    profile_state,
    profile_step,
    resolve_problem,
)
from boexplore.io import atomic_write_text

# Every name of the former single module, so ``kg_profile.<name>`` keeps working. A module
# global is read in the module that defines it: patch it there (``report.COMPUTE_BOUND``).
__all__ = [
    "BACKWARD", "CATEGORIES", "COMPUTE_BOUND", "COUNTED_OPS", "DEFAULT_CONFIG", "DEFAULT_OUT",
    "EVAL_REPEATS", "FANTASY", "INITIAL", "KERNEL", "KEY", "LBFGSB", "OTHER", "PHASES",
    "PHASE_INITIAL", "PHASE_OPTIMISE", "PHASE_REST", "PROFILERS", "SAMPLE_INTERVAL", "SOLVES",
    "STEP_MAXITER", "Context", "Evaluations", "Key", "Match", "StepProfile", "attribute",
    "classify", "count_flops", "evaluation_costs", "findings_lines", "forward_key", "main",
    "merge", "model_flops", "paper_settings", "profile_call", "profile_state", "profile_step",
    "record_evaluations", "render_markdown", "resolve_problem", "sample_call", "stack_context",
]  # fmt: skip

DEFAULT_OUT = Path("docs/kg-profile.csv")


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["methods"]:
        from boexplore.bench.step_profile import method_report

        return method_report.main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m boexplore.bench.step_profile",
                                     description=__doc__.splitlines()[0])  # fmt: skip
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
    rows = with_cache_column(
        pd.read_csv(args.out) if args.out.exists() else pd.DataFrame(columns=KEY)
    )
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
