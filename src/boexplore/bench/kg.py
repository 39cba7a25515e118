"""The qKG lever: CPU per step and knowledge gradient reached, current vs cheaper settings.

``python -m boexplore.bench.kg --out docs/kg-speed.md``

qKG dominates the paper config's CPU (about 70 % under the cost model), and full qKG runs
cost up to an hour per seed, so the quality benchmark (:mod:`boexplore.bench.quality`)
cannot afford qKG cells. This benchmark measures the qKG step itself on real GP states:
for each (problem, n, seed) a Sobol design of ``n`` points is evaluated, a GP fitted, and
one qKG step optimised under each settings column (fantasies, restarts, raw samples, with
the engine's memory guard ``batch_limit=1, init_batch_limit=8``) through the engine's own
proposal code (:func:`boexplore.bo.acquisition.propose`). Every chosen point is
then scored by ONE reference knowledge gradient (more fantasies, a fixed sampler seed,
inner maximisation by :meth:`qKnowledgeGradient.evaluate`), so the columns are compared
on the same yardstick, not on their own noisy Monte-Carlo estimates.

BoTorch's qKG value is the expected maximum of the fantasy posterior mean, in units of
the objective; its *gain* over the current maximum of the posterior mean ``v0`` is the
knowledge gradient proper (>= 0 up to Monte-Carlo error). Reported per column: CPU
seconds per step (``time.process_time``); the share of the state's best achieved gain each
column misses (its difference from the current column, paired over states, 95 % t
interval); the mean gain relative to the current column's (paired bootstrap per problem);
and the distance between the points the columns chose.

``--optimizer-seeds K`` runs every column K times per state (averaged per state: the
optimiser's own randomness is most of the per-state noise), ``--seed-start`` picks state
seeds a pilot never saw, ``--control`` adds a random-point column that must fail the rules,
and ``--report A.csv B.csv`` merges parallel shards. The confirmatory run of
docs/kg-speed-confirm.md::

    python -m boexplore.bench.kg --problems branin:2 hartmann:6 --sizes 20 80 --seeds 6
        --seed-start 5 --optimizer-seeds 2 --control --columns '{...}' --out shardA.md

Warm start (``kg_warm_start``): BO-like states and the decision rule
--------------------------------------------------------------------

The engine's opt-in qKG warm start keeps a step's full one-shot solution (candidate and
fantasy points) and starts one restart of the next step from it, drawing the other restarts'
initial conditions from half the raw samples. A Sobol state has no previous step, so the warm
column runs on *sequential* states (``--sequential``), built as a BO run sees them: the first
``n - 1`` points of the state's Sobol design are evaluated and a GP fitted (``D_{n-1}``); ONE
qKG step with the current settings (``COLUMNS["current"]``, optimiser and sampler seed = state
seed + 500, the same for every optimiser seed of the state) is run through the engine's
proposal code with ``kg_warm_start`` on, so its full one-shot tree is kept; the problem is
evaluated at its candidate, and the state is ``D_n = D_{n-1}`` + that point with a GP fitted
on all ``n`` points. EVERY column of a ``--sequential`` run is scored on ``D_n`` (so
'current', a cold step, and the warm column are paired on identical states); sequential and
Sobol states never share a table. ``--warm`` (only with ``--sequential``) adds the column
'warm start': the current settings with ``kg_warm_start``, started from the tree the step that
formed ``D_n`` kept (the candidate of that tree is the state's last point, as in BO). Its CPU
per step is measured like every column's (``time.process_time`` around the one step); the
step that formed the state is charged to no column.

Decision rule for 'warm start', written down before the column ran on any state. Data: the
confirmatory states of docs/kg-speed-confirm.md built sequentially (Branin-2 and Hartmann-6,
n = 20 and 80, state seeds 5–16: 48 states), 2 optimiser seeds per state and column (averaged
per state), the columns 'current', 'warm start' and the random-point control, every chosen
point scored by the reference KG. Per problem:

1. Validity: the random-point control must fail, i.e. its gain ratio (below) has a lower 95 %
   end < 0.90 in every problem; otherwise the run decides nothing.
2. Quality: the warm column's gain ratio (mean reference KG gain / the current column's mean
   gain, paired bootstrap over the states, 95 % interval) has its lower end >= 0.90
   (``GAIN_RATIO_FLOOR``) in every problem.
3. Speed: the warm column counts as faster only if its mean CPU per step is lower than the
   current column's over the same states (speed-up > 1) in every problem.

``kg_warm_start`` is switched on in ``config/paper.yaml`` (``bo.extra.kg_warm_start``) only if
1–3 all hold. Quality without speed (2 but not 3) leaves it off (no reason to change the
engine's default); the shortfall table is reported but does not decide.

The confirmatory run of the warm column, one shard per problem (a shard builds its own
states; ``--report`` merges the two and refuses shards that disagree on a state)::

    python -m boexplore.bench.kg --problems branin:2 --sizes 20 80 --seeds 12 --seed-start 5
        --optimizer-seeds 2 --sequential --warm --control
        --columns '{"current": {"fantasies": 64, "num_restarts": 10, "raw_samples": 1024}}'
        --out kg-warm-branin.md
    (the same with hartmann:6 and --out kg-warm-hartmann.md), then
    python -m boexplore.bench.kg --report kg-warm-branin.csv kg-warm-hartmann.csv
        --title 'qKG warm start: confirmatory run (pre-registered)' --out docs/kg-warm-start.md

Fantasy cache (``kg_fantasy_cache``, issue 41): the same rule 1-3 decides the ``fantasy cache``
column (``--fantasy-cache``; :mod:`boexplore.bo.acquisition.fantasy_cache`), on the 48 Sobol
states of the confirmatory run of docs/kg-speed-confirm.md (seeds 5-16, n = 20 and 80, two
optimiser seeds), its rows merged with that run's current and control columns (``--report``
refuses a state the two disagree on). Exact to rounding, the column should keep the gain; what
rule 3 tests is that it is not slower. Its CPU is measured on another day than the committed
current column, so a paired run of both columns on the same states, under the same load,
(``--no-reference``) gives the speed-up beside it::

    python -m boexplore.bench.kg --problems branin:2 hartmann:6 --sizes 20 80 --seeds 6
        --seed-start 5 --optimizer-seeds 2
        --columns '{"fantasy cache": {"fantasies": 64, "num_restarts": 10, "raw_samples": 1024,
                    "fantasy_cache": true}}' --out cache-shard.md
    python -m boexplore.bench.kg --report confirm-subset.csv cache-shard.csv
        --title 'qKG fantasy cache: confirmatory run (pre-registered)' --out docs/kg-fantasy-cache.md

(``confirm-subset.csv``: the current and random-point rows of docs/kg-speed-confirm.csv on the
states the shard ran.) The run was cut to state seeds 5-10 (24 of the 48 states) for its CPU on
a loaded two-core machine; the verdict is on those 24.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.stats import t_interval
from boexplore.bench.quality import parse_problem_arg
from boexplore.io import atomic_write_text

COLUMNS: dict[str, dict[str, int]] = {
    "current": {"fantasies": 64, "num_restarts": 10, "raw_samples": 1024},
    "effort/2": {"fantasies": 64, "num_restarts": 5, "raw_samples": 512},
    "fant32+effort/2": {"fantasies": 32, "num_restarts": 5, "raw_samples": 512},
    "fant16+effort/2": {"fantasies": 16, "num_restarts": 5, "raw_samples": 512},
}
REFERENCE = {"fantasies": 128, "num_restarts": 10, "raw_samples": 512, "seed": 9_999}
DEFAULT_PROBLEMS = ("branin:2", "hartmann:6", "ackley:10")
#: A cheaper column is acceptable when the upper end of its pooled shortfall difference from
#: the current settings (95 % t interval) stays below this share of the achievable KG gain.
SHORTFALL_MARGIN = 0.10
DEFAULT_SIZES = (15, 40)
DEFAULT_OUT = Path("docs/kg-speed.md")
DEFAULT_TITLE = "qKG step: CPU and knowledge gradient reached"
KEY = ["problem", "dim", "n", "seed", "column"]
STATE = ["problem", "dim", "n", "seed"]
#: Second rule (fixed before the effort/2 confirmatory column ran): per problem, the mean KG
#: gain a column reaches over the current settings' mean gain (paired bootstrap over states)
#: must have its lower 95 % end at or above this ratio in every problem. Unlike the shortfall
#: it does not divide by a state's own (sometimes Monte-Carlo-sized) best gain.
GAIN_RATIO_FLOOR = 0.90
#: The control column (``--control``): a uniform random point, scored like the others. It
#: must fail the acceptance rule, or the rule cannot tell a good step from a useless one.
RANDOM_POINT = "random point"
#: The warm-start column (``--warm``, needs ``--sequential``): the current settings with the
#: engine's ``kg_warm_start``, started from the tree of the step that formed the state.
WARM = "warm start"
#: The fantasy-cache column (``--fantasy-cache``): the current settings with the engine's
#: ``kg_fantasy_cache`` (exact to rounding, so it is decided by the same rule as the warm start).
FANTASY_CACHE = "fantasy cache"
#: The qKG step that forms a sequential state runs with optimiser / sampler seed
#: ``state seed + PREVIOUS_STEP_SEED`` (BO's previous step has its own seed; disjoint from the
#: optimiser seeds ``seed + 1000 j`` of the state seeds below 500).
PREVIOUS_STEP_SEED = 500
#: L-BFGS-B iterations per restart of every qKG step (the engine's ``acq_maxiter`` default).
MAXITER = 200
#: ``state_kind`` of a row: a Sobol design of n points, or a BO-like state (``--sequential``).
SOBOL, SEQUENTIAL = "sobol", "sequential"


#: The KG-gain cell of a timing-only state: the reference KG was too costly to compute there.
TIMING_ONLY = "not computed (timing only)"


def _fit(X: np.ndarray, y: np.ndarray) -> Any:
    """The engine's GP (cold fit, default retries) on unit-cube inputs and objective values."""
    import torch

    from boexplore.bo.model import fit_gp

    X_t = torch.as_tensor(X, dtype=torch.float64)
    Y_t = torch.as_tensor(y, dtype=torch.float64).unsqueeze(-1)  # the GP standardises
    model, _ = fit_gp(X_t, Y_t)
    return model


def _unit_bounds(dim: int) -> Any:
    import torch

    return torch.stack([torch.zeros(dim), torch.ones(dim)]).double()


def _state(problem_name: str, dim: int, n: int, seed: int) -> tuple[Any, Any]:
    """Training data (unit-cube Sobol design, objective values) and its fitted GP."""
    from boexplore.bo.loop import sobol_unit
    from boexplore.problems import get_problem

    problem = get_problem(problem_name, dim)
    X = sobol_unit(dim, seed, 0, n)
    y = np.asarray(problem.evaluate(X), dtype=float)
    return _fit(X, y), _unit_bounds(dim)


@dataclass
class SequentialState:
    """A BO-like state ``D_n`` (module docstring): its GP, the points, the kept tree."""

    model: Any
    bounds: Any
    X: np.ndarray  # (n, d): the first n - 1 Sobol points, then the previous step's candidate
    y: np.ndarray
    tree: Any  # the previous step's full one-shot solution (1 + fantasies, d)
    cpu_s: float  # CPU of the previous step (charged to no column)


def sequential_state(problem_name: str, dim: int, n: int, seed: int,
                     settings: Mapping[str, int] | None = None) -> SequentialState:  # fmt: skip
    """``D_n`` as a BO run sees it: the first ``n - 1`` points of the state's Sobol design,
    then the candidate of ONE qKG step on them (``settings``, default the current column's;
    seed ``seed + PREVIOUS_STEP_SEED``; ``kg_warm_start`` on, so its tree is kept)."""
    from boexplore.bo.acquisition.proposal import OneShotCarry
    from boexplore.bo.loop import sobol_unit
    from boexplore.problems import get_problem

    settings = COLUMNS["current"] if settings is None else settings
    if n < 2 or int(settings["fantasies"]) < 1:
        raise ValueError("a sequential state needs n >= 2 and a qKG step (fantasies >= 1)")
    problem = get_problem(problem_name, dim)
    X = sobol_unit(dim, seed, 0, n - 1)
    y = np.asarray(problem.evaluate(X), dtype=float)
    bounds = _unit_bounds(dim)
    carry = OneShotCarry()
    x_new, cpu = kg_step(_fit(X, y), bounds, settings, seed + PREVIOUS_STEP_SEED, carry=carry)
    x_new = x_new.numpy()
    X = np.vstack([X, x_new])
    y = np.concatenate([y, np.asarray(problem.evaluate(x_new), dtype=float)])
    return SequentialState(_fit(X, y), bounds, X, y, carry.tree, cpu)


def _kg(model: Any, fantasies: int, seed: int, fantasy_cache: bool = False) -> Any:
    import torch
    from botorch.acquisition import qKnowledgeGradient
    from botorch.sampling import SobolQMCNormalSampler

    from boexplore.bo.acquisition.fantasy_cache import FantasyCacheKnowledgeGradient

    sampler = SobolQMCNormalSampler(sample_shape=torch.Size([fantasies]), seed=seed)
    kg = FantasyCacheKnowledgeGradient if fantasy_cache else qKnowledgeGradient
    return kg(model, num_fantasies=fantasies, sampler=sampler)


def kg_step(model: Any, bounds: Any, settings: Mapping[str, Any], seed: int,
            carry: Any = None) -> tuple[Any, float]:  # fmt: skip
    """One qKG step through the engine's proposal code (:func:`boexplore.bo.acquisition.propose`:
    ``KG_OPTIONS``, ``MAXITER`` iterations); returns (chosen point (1, d), CPU seconds of the
    step alone).

    ``fantasies = 0`` is the control: a uniform random point in ``bounds``. With ``carry`` (a
    :class:`~boexplore.bo.acquisition.proposal.OneShotCarry`) the step runs with
    ``kg_warm_start``: it starts one restart from ``carry.tree`` if there is one and leaves its
    own full one-shot solution there. A column with a true ``warm_start`` needs a carry holding
    a tree of its shape ``(1 + fantasies, d)`` (the engine would otherwise start cold).
    """
    import torch

    from boexplore.bo.acquisition import propose
    from boexplore.bo.methods import parse_method
    from boexplore.bo.settings import BOSettings

    fantasies = int(settings["fantasies"])
    if settings.get("warm_start"):
        shape = (1 + fantasies, int(bounds.shape[-1]))
        tree = None if carry is None else carry.tree
        if tree is None or tuple(tree.shape) != shape:
            got = None if tree is None else tuple(tree.shape)
            raise ValueError(f"a warm-start step needs the previous tree {shape}, got {got}")
    torch.manual_seed(seed)
    start = time.process_time()
    if fantasies == 0:
        lo, hi = bounds[0], bounds[1]
        X = lo + (hi - lo) * torch.rand(1, bounds.shape[-1], dtype=bounds.dtype)
        return X, time.process_time() - start
    cfg = BOSettings.from_kwargs(num_restarts=int(settings["num_restarts"]),
                                 raw_samples=int(settings["raw_samples"]), acq_maxiter=MAXITER,
                                 kg_warm_start=carry is not None,
                                 kg_fantasy_cache=bool(settings.get("fantasy_cache", False)))  # fmt: skip
    spec = parse_method(f"kg(fantasies={fantasies})")
    X_train = model.train_inputs[0]
    y_train = model.train_targets.unsqueeze(-1)  # qKG does not use it (only a fallback would)
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        X, flag = propose(spec, model, X_train, y_train, bounds, 1, cfg, rng, seed, carry=carry)
    cpu = time.process_time() - start
    if flag:
        raise RuntimeError(f"the qKG step fell back to a random point ({flag})")
    return X.detach().reshape(1, -1), cpu


def reference_kg(model: Any, bounds: Any, X: Any) -> float:
    """Knowledge gradient of ``X`` under the fixed reference estimator (inner max solved)."""
    import torch

    acqf = _kg(model, REFERENCE["fantasies"], REFERENCE["seed"])
    torch.manual_seed(REFERENCE["seed"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = acqf.evaluate(
            X.unsqueeze(0),
            bounds=bounds,
            num_restarts=REFERENCE["num_restarts"],
            raw_samples=REFERENCE["raw_samples"],
        )
    return float(value.reshape(-1)[0])


def max_posterior_mean(model: Any, bounds: Any) -> float:
    """``v0``: the maximum of the posterior mean (what KG's gain is measured from)."""
    import torch
    from botorch.acquisition import PosteriorMean
    from botorch.optim import optimize_acqf

    torch.manual_seed(REFERENCE["seed"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, value = optimize_acqf(PosteriorMean(model), bounds=bounds, q=1,
                                 num_restarts=REFERENCE["num_restarts"],
                                 raw_samples=REFERENCE["raw_samples"])  # fmt: skip
    return float(value)


def optimizer_seeds(seed: int, count: int) -> list[int]:
    """The optimiser seeds of one state: the state seed first (the pilot's one-seed rows),
    then ``seed + 1000 j``, so states never share an optimiser seed."""
    return [seed + 1000 * j for j in range(count)]


def _json_x(x: Any) -> str:
    return json.dumps([round(float(v), 6) for v in np.asarray(x).reshape(-1)])


def run_state(problem_name: str, dim: int, n: int, seed: int,
              columns: Mapping[str, Mapping[str, Any]], reference: bool = True,
              opt_seeds: int = 1,
              sequential: Mapping[str, int] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """All columns on one GP state, each with ``opt_seeds`` optimiser seeds; rows carry CPU
    seconds, reference KG (and its CPU) and the point (``reference=False``: timing only, for
    states where the reference is too costly).

    ``sequential`` (the settings of the step that forms the state): a BO-like state
    (:func:`sequential_state`) instead of a Sobol design; its rows also carry the state's last
    point (``state_last_x``) and that step's CPU (``state_cpu_s``, charged to no column). A
    column with a true ``warm_start`` needs it: it starts from the kept tree (a copy per step).
    """
    from boexplore.bo.acquisition.proposal import OneShotCarry

    if sequential is None and any(s.get("warm_start") for s in columns.values()):
        raise ValueError("a warm-start column needs sequential states (a previous step's tree)")
    extra: dict[str, Any] = {"state_kind": SOBOL}
    tree = None
    if sequential is None:
        model, bounds = _state(problem_name, dim, n, seed)
    else:
        st = sequential_state(problem_name, dim, n, seed, sequential)
        model, bounds, tree = st.model, st.bounds, st.tree
        extra = {"state_kind": SEQUENTIAL, "state_last_x": _json_x(st.X[-1]),
                 "state_cpu_s": st.cpu_s}  # fmt: skip
    v0 = max_posterior_mean(model, bounds) if reference else float("nan")
    rows = []
    for opt_seed in optimizer_seeds(seed, opt_seeds):
        for name, settings in columns.items():
            warm = bool(settings.get("warm_start", False))
            carry = OneShotCarry(tree.clone()) if warm else None
            X, cpu = kg_step(model, bounds, settings, opt_seed, carry)
            start = time.process_time()
            kg = reference_kg(model, bounds, X) if reference else float("nan")
            rows.append({"problem": problem_name, "dim": dim, "n": n, "seed": seed,
                         "opt_seed": opt_seed, "column": name, **settings, "warm_start": warm,
                         "cpu_s": cpu, "kg_ref": kg, "ref_cpu_s": time.process_time() - start,
                         "v0": v0, "x": _json_x(X), **extra})  # fmt: skip
    return rows


def _warm_rows(rows: pd.DataFrame) -> pd.Series:
    """Which rows are warm-start steps (tables written before the column have none)."""
    if "warm_start" not in rows:
        return pd.Series(False, index=rows.index)
    flag = rows["warm_start"].astype(str).str.strip().str.lower()
    return flag.isin(["true", "1", "1.0"])


def state_kind(rows: pd.DataFrame) -> str:
    """``SOBOL`` or ``SEQUENTIAL``: the kind of the table's states (old tables: Sobol).

    Raises ``ValueError`` when a table mixes the kinds, or when the rows of one sequential
    state disagree on its last point (shards whose state-forming steps were not identical,
    so their columns would not be paired on the same state)."""
    kinds = rows["state_kind"].fillna(SOBOL) if "state_kind" in rows else pd.Series([SOBOL])
    found = set(kinds.unique())
    if len(found) > 1:
        raise ValueError(f"a table mixes Sobol and sequential states ({sorted(found)})")
    kind = found.pop() if found else SOBOL
    if kind == SEQUENTIAL:
        last = rows.groupby(STATE)["state_last_x"].nunique()
        if (last > 1).any():
            bad = [":".join(map(str, k)) for k in last[last > 1].index]
            raise ValueError(f"rows of one sequential state disagree on its last point: {bad}")
    return str(kind)


def _with_opt_seed(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows written before optimiser seeds were recorded ran with the state seed."""
    if "opt_seed" in rows and rows["opt_seed"].notna().all():
        return rows
    fill = rows["seed"] if "opt_seed" not in rows else rows["opt_seed"].fillna(rows["seed"])
    return rows.assign(opt_seed=fill.astype(int))


def shortfalls(rows: pd.DataFrame) -> pd.DataFrame:
    """Per row: the share of the state's best achieved KG gain that its column missed.

    ``(best kg_ref of the state over all columns - kg_ref) / (best - v0)``: 0 for the column
    that found the best point, 1 for a point no better than the posterior-mean maximum.
    The best is taken over every column and optimiser seed of the state. States where no
    column gains (best <= v0) carry no information and are dropped.
    """
    best = rows.groupby(STATE)["kg_ref"].transform("max")
    gain = best - rows["v0"]
    out = rows.assign(shortfall=(best - rows["kg_ref"]) / gain.where(gain > 0))
    return out[out["shortfall"].notna()]


def _distance(u: str, v: str) -> float:
    return float(np.linalg.norm(np.array(json.loads(u)) - np.array(json.loads(v))))


def per_state(rows: pd.DataFrame, base: str = "current") -> pd.DataFrame:
    """One row per (state, column): shortfall and CPU averaged over the optimiser seeds, and
    the mean distance to the ``base`` column's point of the same optimiser seed."""
    rows = _with_opt_seed(shortfalls(rows))
    base_x = rows[rows["column"] == base].set_index([*STATE, "opt_seed"])["x"]
    dist = [
        _distance(r.x, base_x.loc[k]) if (k := (r.problem, r.dim, r.n, r.seed, r.opt_seed))
        in base_x.index else np.nan
        for r in rows.itertuples(index=False)
    ]  # fmt: skip
    rows = rows.assign(dist=dist)
    out = rows.groupby([*STATE, "column"], sort=False).agg(
        shortfall=("shortfall", "mean"), cpu_s=("cpu_s", "mean"), dist=("dist", "mean"),
        opt_seeds=("opt_seed", "nunique"))  # fmt: skip
    out = out.reset_index()
    return out.assign(state=out[STATE].astype(str).agg(":".join, axis=1))


def compare(rows: pd.DataFrame, base: str = "current") -> pd.DataFrame:
    """Per (problem, column): speed-up, mean KG shortfall and its paired difference from
    ``base`` (95 % t interval over states, each state averaged over its optimiser seeds),
    and the median distance between the points."""
    rows = per_state(rows, base)
    pooled = rows.assign(problem="all problems", dim="")
    ref = rows[rows["column"] == base].set_index("state")
    out = []
    groups = [*rows.groupby(["problem", "dim", "column"], sort=False),
              *pooled.groupby(["problem", "dim", "column"], sort=False)]  # fmt: skip
    for (problem, dim, column), g in groups:
        g = g.set_index("state")
        common = g.index.intersection(ref.index)
        if not len(common):
            continue
        b = ref.loc[common]
        diff = g.loc[common, "shortfall"].to_numpy() - b["shortfall"].to_numpy()
        mean, lo, hi = t_interval(diff)
        out.append({"problem": problem, "dim": dim, "column": column, "states": len(common),
                    "speedup": b["cpu_s"].mean() / g.loc[common, "cpu_s"].mean(),
                    "shortfall": float(g.loc[common, "shortfall"].mean()),
                    "d_shortfall": mean, "d_low": lo, "d_high": hi,
                    "median_dist": float(np.median(g.loc[common, "dist"]))})  # fmt: skip
    return pd.DataFrame(out)


def gain_ratios(rows: pd.DataFrame, base: str = "current", n_boot: int = 2000) -> pd.DataFrame:
    """Per (problem, column): mean KG gain over ``base``'s mean gain, paired over states
    (each state averaged over its optimiser seeds), with a 95 % paired bootstrap interval."""
    from boexplore.analysis.claimkit.stats import paired_ratio_ci

    rows = _with_opt_seed(rows).assign(gain=lambda r: r["kg_ref"] - r["v0"])
    gains = rows.groupby(["problem", "dim", *STATE[2:], "column"], sort=False)["gain"].mean()
    table = gains.unstack("column")
    out: list[dict[str, Any]] = []
    if base not in table.columns:  # e.g. a shard that ran only a cheaper column
        return pd.DataFrame(out)
    for (problem, dim), g in table.groupby(level=["problem", "dim"], sort=False):
        g = g.dropna(subset=[base])
        for column in table.columns:
            if column == base or g[column].isna().all():
                continue
            pair = g[[column, base]].dropna()
            ratio, lo, hi = paired_ratio_ci(pair[column].to_numpy(), pair[base].to_numpy(),
                                            n_boot=n_boot, seed=0)  # fmt: skip
            out.append({"problem": problem, "dim": dim, "column": column, "states": len(pair),
                        "ratio": ratio, "low": lo, "high": hi})  # fmt: skip
    return pd.DataFrame(out)


def cost_fit(rows: pd.DataFrame, curvature: bool = False) -> dict[str, float]:
    """The cost model's qKG terms fitted to the measured steps (``pipeline/cost.py``).

    ``log cpu = log a + b log(n/100) + c log(1 + d/10)`` on the ``current`` column, ``a``
    rescaled to the calibration's reference effort (10 restarts, 512 raw samples), and the
    share ``f`` of a step that does not scale with fantasies: ``cpu(F)/cpu(64) = f + (1 - f)
    F/64``, from the columns with equal effort and fewer fantasies (median over states).
    ``curvature``: fit on the mean of each (problem, d, n) cell, with a ``b2 log(n/100)^2``
    term, for steps spanning n = 20-500, where the cost grows faster than one power of n.
    """
    from boexplore.pipeline.cost import REF_RAW, REF_RESTARTS

    rows = rows[~_warm_rows(rows)]  # a warm step is not the cost model's cold step
    cur = rows[rows["column"] == "current"]
    r0, s0 = cur.iloc[0][["num_restarts", "raw_samples"]]
    if curvature:
        cur = cur.groupby(["problem", "dim", "n"], as_index=False)["cpu_s"].mean()
    ln_n = np.log(cur["n"].to_numpy(float) / 100.0)
    columns = [np.ones(len(cur)), ln_n, np.log1p(cur["dim"].to_numpy(float) / 10.0)]
    if curvature:
        columns.append(ln_n**2)
    coef, *_ = np.linalg.lstsq(np.column_stack(columns), np.log(cur["cpu_s"].to_numpy(float)),
                               rcond=None)  # fmt: skip
    log_a, b, c = coef[:3]
    b2 = float(coef[3]) if curvature else 0.0
    effort = 0.7 * r0 / REF_RESTARTS + 0.3 * s0 / REF_RAW
    shares = []
    rows = _with_opt_seed(rows)
    key = ["problem", "dim", "n", "seed", "opt_seed", "num_restarts", "raw_samples"]
    full = rows[rows["fantasies"] == 64].set_index(key)["cpu_s"]
    for _, r in rows[(rows["fantasies"] > 0) & (rows["fantasies"] < 64)].iterrows():
        k = tuple(r[key])
        if k in full.index:
            ratio, frac = r["cpu_s"] / full.loc[k], r["fantasies"] / 64.0
            shares.append((ratio - frac) / (1.0 - frac))
    f = float(np.clip(np.median(shares), 0.0, 1.0)) if shares else float("nan")
    out = {"a": float(np.exp(log_a) / effort), "b": float(b), "c": float(c), "fantasy_fixed": f}
    return out | ({"b2": b2} if curvature else {})


def warm_decision(rows: pd.DataFrame, column: str = WARM, base: str = "current",
                  n_boot: int = 2000) -> tuple[pd.DataFrame, str]:  # fmt: skip
    """The pre-registered decision on the warm-start column (module docstring).

    Per problem: the column's and the control's gain ratios (:func:`gain_ratios`) and the
    speed-up (``base``'s mean CPU per step / the column's, over the states both ran, each state
    averaged over its optimiser seeds). Returns that table and the verdict line."""
    ratios = gain_ratios(rows, base, n_boot)
    if not len(ratios):
        ratios = pd.DataFrame(columns=["problem", "column", "ratio", "low", "high"])
    cpu = _with_opt_seed(rows).groupby([*STATE, "column"], sort=False)["cpu_s"].mean()
    cpu = cpu.unstack("column")
    out = []
    for (problem, dim), g in cpu.groupby(level=["problem", "dim"], sort=False):
        if column not in g or base not in g:
            continue
        pair = g[[column, base]].dropna()
        r = ratios[(ratios["problem"] == problem) & (ratios["column"] == column)]
        c = ratios[(ratios["problem"] == problem) & (ratios["column"] == RANDOM_POINT)]
        low = float(r["low"].iloc[0]) if len(r) else float("nan")
        control_low = float(c["low"].iloc[0]) if len(c) else float("nan")
        speedup = float(pair[base].mean() / pair[column].mean()) if len(pair) else float("nan")
        out.append({"problem": problem, "dim": dim, "states": len(pair),
                    "ratio": float(r["ratio"].iloc[0]) if len(r) else float("nan"),
                    "low": low, "high": float(r["high"].iloc[0]) if len(r) else float("nan"),
                    "quality": bool(low >= GAIN_RATIO_FLOOR), "speedup": speedup,
                    "faster": bool(speedup > 1.0), "control_low": control_low,
                    "control_fails": bool(control_low < GAIN_RATIO_FLOOR)})  # fmt: skip
    table = pd.DataFrame(out)
    if not len(table):
        return table, f"no decision: the table has no paired {column!r} and {base!r} rows"
    if not table["control_fails"].all():
        return table, "no decision: the random-point control is missing or passes the floor"
    quality, faster = bool(table["quality"].all()), bool(table["faster"].all())
    if quality and faster:
        return table, "adopt: keeps the KG gain and is faster in every problem"
    why = [w for w, ok in (("loses KG gain", quality), ("is not faster", faster)) if not ok]
    return table, f"stays off: {' and '.join(why)} in at least one problem"


def _decision_lines(rows: pd.DataFrame, column: str) -> list[str]:
    """The pre-registered decision on ``column`` (:func:`warm_decision`) as Markdown."""
    table, verdict = warm_decision(rows, column)
    lines = ["", f"## Decision on {column!r} (pre-registered in the module docstring)", "",
             f"Counts if the control fails (gain-ratio lower end < {GAIN_RATIO_FLOOR}) in "
             f"every problem, and in every problem the column's lower end ≥ "
             f"{GAIN_RATIO_FLOOR} and its mean CPU per step is below the current "
             "column's (speed-up > 1).", "",
             "| problem | d | states | gain ratio | 95 % interval | ≥ floor | speed-up | "
             "faster | control lower end | control fails |",
             "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    yes = {True: "yes", False: "no"}
    for r in table.itertuples(index=False):
        lines.append(f"| {r.problem} | {r.dim} | {r.states} | {r.ratio:.3f} | [{r.low:.3f}, "
                     f"{r.high:.3f}] | {yes[r.quality]} | {r.speedup:.2f}× | {yes[r.faster]} "
                     f"| {r.control_low:.3f} | {yes[r.control_fails]} |")  # fmt: skip
    return [*lines, "", f"Verdict: {verdict}."]


def _paired_speed_lines(rows: pd.DataFrame, base: str = "current") -> list[str]:
    """Timing-only runs: each column's mean CPU per step against ``base`` on the states both
    ran (each state averaged over its optimiser seeds), per (problem, n) and per problem."""
    cpu = _with_opt_seed(rows).groupby([*STATE, "column"], sort=False)["cpu_s"].mean()
    cpu = cpu.unstack("column")
    if base not in cpu:
        return []
    lines = ["", f"## Speed-up over {base!r} on the same states (timing only)", "",
             "| problem | d | n | column | states | CPU s / step | CPU s / step "
             f"({base}) | speed-up |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    groups = [*cpu.groupby(level=["problem", "dim", "n"], sort=False),
              *cpu.groupby(level=["problem", "dim"], sort=False)]  # fmt: skip
    for key, g in groups:
        problem, dim, n = (*key, "all") if len(key) == 2 else key
        for column in [c for c in g.columns if c != base]:
            pair = g[[column, base]].dropna()
            if len(pair):
                a, b = float(pair[column].mean()), float(pair[base].mean())
                lines.append(f"| {problem} | {dim} | {n} | {column} | {len(pair)} | {a:.2f} | "
                             f"{b:.2f} | {b / a:.2f}× |")  # fmt: skip
    return lines


def render_markdown(
    rows: pd.DataFrame, title: str = "qKG step: CPU and knowledge gradient reached"
) -> str:
    """Per-column CPU and the paired comparison with the current settings."""
    seeds = int(_with_opt_seed(rows).groupby(STATE)["opt_seed"].nunique().max())
    kind = state_kind(rows)
    state_text = "" if kind == SOBOL else (
        " States: BO-like (`--sequential`): the first n − 1 Sobol points and the candidate of "
        "one qKG step with the current settings on them; every column runs on the same n points.")  # fmt: skip
    scored = bool(rows["kg_ref"].notna().any())
    reference = (f"Reference KG: {REFERENCE['fantasies']} fantasies, fixed sampler, inner "
                 "maximisation." if scored else
                 "Timing only (`--no-reference`): no point is scored.")  # fmt: skip
    lines = [f"# {title}", "",
             f"Generated by `python -m boexplore.bench.kg` (see its docstring). {reference} "
             f"Optimiser seeds per state and column: up to {seeds}.{state_text}", "",
             "| problem | d | column | fantasies | restarts | raw | states | CPU s / step | "
             "KG gain (reference) |", "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for (p, d, c), g in rows.groupby(["problem", "dim", "column"], sort=False):
        s = g.iloc[0]
        states = len(g.groupby(STATE))
        mean_gain = (g.kg_ref - g.v0).mean() if scored else None
        gain = (
            "—" if mean_gain is None else TIMING_ONLY if np.isnan(mean_gain) else f"{mean_gain:.4g}"
        )
        lines.append(f"| {p} | {d} | {c} | {s.fantasies} | {s.num_restarts} | {s.raw_samples} | "
                     f"{states} | {g.cpu_s.mean():.2f} | {gain} |")  # fmt: skip
    if _warm_rows(rows).any():
        from boexplore.bo.acquisition.proposal import WARM_RAW_SHARE

        lines += ["", "Warm-start rows (`kg_warm_start`): one restart starts from the one-shot "
                  "solution of the step that formed the state, the others from "
                  f"{WARM_RAW_SHARE:.0%} of the raw samples listed; CPU is that step alone."]  # fmt: skip
    if not rows["kg_ref"].notna().any():  # --no-reference: timing only
        return "\n".join(lines + _paired_speed_lines(rows)) + "\n"
    cmp = compare(rows)
    lines += ["", "## KG shortfall: share of the state's best achieved gain that a column missed",
              "", "Paired over states; Δ = column − current with a 95 % t interval (negative: "
              "the column found better points than the current settings).", "",
              f"Acceptable (rule fixed before results): the interval's upper end < "
              f"{SHORTFALL_MARGIN} (the column loses less than {SHORTFALL_MARGIN:.0%} of the "
              "achievable gain), judged on the pooled rows.", "",
              "| problem | d | column | states | speed-up | mean shortfall | Δ vs current | "
              "median ‖Δx‖ | acceptable |", "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in cmp.itertuples(index=False):
        speed = f"{r.speedup:.2f}×" if r.speedup < 1e3 else "—"
        lines.append(f"| {r.problem} | {r.dim} | {r.column} | {r.states} | {speed} | "
                     f"{r.shortfall:.3f} | {r.d_shortfall:+.3f} [{r.d_low:+.3f}, {r.d_high:+.3f}] | "
                     f"{r.median_dist:.3f} | {'yes' if r.d_high < SHORTFALL_MARGIN else 'no'} |")  # fmt: skip
    ratios = gain_ratios(rows) if rows["kg_ref"].notna().any() else pd.DataFrame()
    if len(ratios):
        lines += ["", "## KG gain reached relative to the current settings", "",
                  "Mean reference KG gain of the column / mean gain of the current settings over "
                  "the same states, 95 % paired bootstrap interval. Acceptable (second rule, "
                  "fixed before the effort/2 confirmatory column ran): lower end ≥ "
                  f"{GAIN_RATIO_FLOOR} in every problem.", "",
                  "| problem | d | column | states | gain ratio | 95 % interval | ≥ floor |",
                  "|---|---|---|---|---|---|---|"]  # fmt: skip
        for r in ratios.itertuples(index=False):
            lines.append(f"| {r.problem} | {r.dim} | {r.column} | {r.states} | {r.ratio:.3f} | "
                         f"[{r.low:.3f}, {r.high:.3f}] | {'yes' if r.low >= GAIN_RATIO_FLOOR else 'no'} |")  # fmt: skip
    for decided in (WARM, FANTASY_CACHE):
        if decided in set(rows["column"]) and len(ratios):
            lines += _decision_lines(rows, decided)
    fit = cost_fit(rows) if (rows["column"] == "current").sum() >= 3 else None
    if fit is not None and np.isfinite(fit["fantasy_fixed"]) and rows["dim"].nunique() >= 3:
        lines += ["", "## Cost-model fit (`cost/calibration.json`, kg)", "",
                  f"acq = {fit['a']:.3g} · (n/100)^{fit['b']:.2f} · (1 + d/10)^{fit['c']:.2f} "
                  "CPU s at the reference effort (10 restarts, 512 raw samples, 64 fantasies); "
                  f"share of a step that does not scale with fantasies: {fit['fantasy_fixed']:.2f}."]  # fmt: skip
    return "\n".join(lines) + "\n"


def _backfill_v0(rows: pd.DataFrame) -> pd.DataFrame:
    """Add ``v0`` to rows written before it was recorded (the states are deterministic)."""
    if not len(rows) or ("v0" in rows and rows["v0"].notna().all()):
        return rows
    if "kg_ref" in rows and rows["kg_ref"].isna().all():
        return rows  # a timing-only table
    if state_kind(rows) == SEQUENTIAL:
        return rows  # recorded with every reference-scored sequential row
    rows = rows.copy()
    if "v0" not in rows:
        rows["v0"] = np.nan
    for (p, d, n, s), idx in (
        rows[rows["v0"].isna()].groupby(["problem", "dim", "n", "seed"]).groups.items()
    ):
        model, bounds = _state(p, int(d), int(n), int(s))
        rows.loc[idx, "v0"] = max_posterior_mean(model, bounds)
    return rows


def build_parser(description: str, sizes: Sequence[int] = DEFAULT_SIZES,
                 out: Path = DEFAULT_OUT, title: str = DEFAULT_TITLE) -> argparse.ArgumentParser:  # fmt: skip
    """The study's arguments with these defaults; a study built on this one (the GPU
    comparison) parses the same arguments under its own defaults and refuses what it does not
    run."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--problems", nargs="+", type=parse_problem_arg,
                        default=[parse_problem_arg(p) for p in DEFAULT_PROBLEMS])  # fmt: skip
    parser.add_argument("--sizes", nargs="+", type=int, default=list(sizes),
                        help=f"state sizes n (default {' '.join(map(str, sizes))})")  # fmt: skip
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--seed-start", type=int, default=0,
                        help="first state seed (a confirmatory set on states the pilot never saw)")  # fmt: skip
    parser.add_argument("--optimizer-seeds", type=int, default=1,
                        help="optimiser seeds per state and column (averaged per state)")  # fmt: skip
    parser.add_argument("--columns", type=json.loads, default=COLUMNS)
    parser.add_argument("--control", action="store_true",
                        help=f"add the {RANDOM_POINT!r} column (must fail the rule)")  # fmt: skip
    parser.add_argument("--sequential", action="store_true",
                        help="BO-like states for every column: n - 1 Sobol points and one qKG "
                             "step with the current settings (module docstring)")  # fmt: skip
    parser.add_argument("--warm", action="store_true",
                        help=f"add the {WARM!r} column (kg_warm_start; needs --sequential)")  # fmt: skip
    parser.add_argument("--fantasy-cache", action="store_true",
                        help=f"add the {FANTASY_CACHE!r} column (kg_fantasy_cache)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=out, help=f"default {out}")
    parser.add_argument("--title", default=title)
    parser.add_argument("--report", nargs="+", type=Path, default=None, metavar="CSV",
                        help="write --out from these result tables (e.g. parallel shards) "
                             "and run nothing")  # fmt: skip
    parser.add_argument("--no-reference", action="store_true",
                        help="timing only (no reference KG), e.g. for high-d states")  # fmt: skip
    return parser


#: What ``--device cuda`` prints: the GPU comparison is a command of its own.
GPU_POINTER = (
    "bench.kg runs on the CPU only; the CPU-vs-GPU study is its own command: "
    "python -m boexplore.bench.kg_device [the same arguments]"
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                        help="cpu only (cuda: prints the GPU study's command and exits 2)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.device == "cuda":
        print(GPU_POINTER, file=sys.stderr)
        return 2
    if args.warm and not args.sequential:
        parser.error("--warm needs --sequential (a warm step starts from the previous step's tree)")
    if args.report:
        rows = pd.concat([pd.read_csv(p) for p in args.report], ignore_index=True)
        state_kind(rows)  # refuses mixed kinds and shards that disagree on a state
        atomic_write_text(rows.to_csv(index=False), args.out.with_suffix(".csv"))
        atomic_write_text(render_markdown(rows, args.title), args.out)
        print(render_markdown(rows, args.title))
        return 0
    import torch

    torch.set_num_threads(1)
    columns = dict(args.columns)
    if args.warm:
        columns[WARM] = {**COLUMNS["current"], "warm_start": True}
    if args.fantasy_cache:
        columns[FANTASY_CACHE] = {**COLUMNS["current"], "fantasy_cache": True}
    if args.control:
        columns[RANDOM_POINT] = {"fantasies": 0, "num_restarts": 0, "raw_samples": 0}
    sequential = COLUMNS["current"] if args.sequential else None
    csv = args.out.with_suffix(".csv")
    rows = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=KEY)
    if len(rows) and state_kind(rows) != (SEQUENTIAL if args.sequential else SOBOL):
        parser.error(f"{csv} holds {state_kind(rows)} states; this run would add others")
    rows = _backfill_v0(rows)
    done = {tuple(r) for r in rows[STATE].itertuples(index=False)}
    for seed in range(args.seed_start, args.seed_start + args.seeds):
        for problem, dim in args.problems:
            for n in args.sizes:
                if (problem, dim, n, seed) in done:
                    continue
                new = pd.DataFrame(run_state(problem, dim, n, seed, columns,
                                             not args.no_reference, args.optimizer_seeds,
                                             sequential))  # fmt: skip
                rows = pd.concat([rows, new], ignore_index=True) if len(rows) else new
                atomic_write_text(rows.to_csv(index=False), csv)
                atomic_write_text(render_markdown(rows, args.title), args.out)
                cpu = ", ".join(
                    f"{c} {g.cpu_s.mean():.1f}+{g.ref_cpu_s.mean():.1f} s"
                    for c, g in new.groupby("column", sort=False)
                )
                print(f"{problem} d={dim} n={n} seed={seed}: {cpu}", flush=True)
    print(render_markdown(rows, args.title))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
