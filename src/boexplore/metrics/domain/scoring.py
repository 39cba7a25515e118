"""OTSD and the per-prefix metric table of raw points on a domain (our extension).

OTSD is the box's: the chronological cheapest-insertion tour of ``metrics.tour`` (same tie
rule), run on the domain distance of ``metrics.domain.distance``. On a box domain every
column equals the box metrics'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from boexplore.metrics.domain.bounds import DOMAIN_BOUND_KEYS, DomainBoundAccumulator
from boexplore.metrics.domain.distance import domain_distance_rows, domain_pairwise
from boexplore.metrics.domain.entropy import DomainEntropyAccumulator
from boexplore.metrics.domain.reference import RandomSearchReference
from boexplore.metrics.domain.spec import parse_domain
from boexplore.metrics.domain.variables import Domain
from boexplore.metrics.scoring import x_columns
from boexplore.metrics.tour import TourBuilder

if TYPE_CHECKING:  # pandas only for whole traces (the `pipeline` extra)
    import pandas as pd

#: Columns of :func:`domain_metrics_table` (the ``*_random`` / ``*_rel`` ones with a reference).
DOMAIN_COLUMNS: tuple[str, ...] = (
    "n", "otsd", "otsd_lb_mst", "otsd_lb_diam", "otsd_lb_nn", "otsd_lb_lattice", "otsd_lb",
    "otsd_ub", "opt_ub", "oe", "otsd_random", "otsd_rel", "oe_random", "oe_rel",
)  # fmt: skip


def domain_distances(X: ArrayLike, domain: Domain | str) -> np.ndarray:
    """Full (T, T) matrix of domain distances between raw points ``X`` (small T: exact tours)."""
    dom = parse_domain(domain)
    return domain_pairwise(dom.encode(X))


def _tour(X: ArrayLike, domain: Domain | str) -> tuple[np.ndarray, np.ndarray]:
    dom = parse_domain(domain)
    P = dom.encode(X)
    builder = TourBuilder(dom.width, capacity=len(P))
    out = np.array([builder.add(row) for row in domain_distance_rows(P)])
    return out, builder.tour()


def domain_otsd(X: ArrayLike, domain: Domain | str) -> np.ndarray:
    """OTSD of every prefix of raw points ``X`` on ``domain`` (length T, starts at 0)."""
    return _tour(X, domain)[0]


def domain_otsd_tour(X: ArrayLike, domain: Domain | str) -> np.ndarray:
    """The heuristic's final tour (indices in walk order from x_1), of length ``domain_otsd(X)[-1]``."""
    return _tour(X, domain)[1]


def domain_metrics_table(
    X: ArrayLike,
    domain: Domain | str,
    reference: RandomSearchReference | None = None,
    *,
    name: str = "X",
) -> dict[str, np.ndarray]:
    """Per-prefix OTSD, bounds and OE of raw points ``X`` on ``domain``, in one pass.

    With ``reference`` adds ``otsd_random`` / ``oe_random`` (random search on the same domain)
    and ``otsd_rel = otsd / otsd_random``, ``oe_rel = oe - oe_random``. ``name`` names the
    points in a :class:`DomainError`.
    """
    dom = parse_domain(domain)
    P = dom.encode(X, name=name)
    T = len(P)
    tour = TourBuilder(dom.width, capacity=T)
    oe = DomainEntropyAccumulator(dom, capacity=T)
    lb = DomainBoundAccumulator(dom, capacity=T)
    acc = {c: np.empty(T) for c in ("otsd", "oe", *DOMAIN_BOUND_KEYS)}
    for t, row in enumerate(domain_distance_rows(P)):
        acc["otsd"][t] = tour.add(row)
        oe.add(row)
        lb.add(row)
        acc["oe"][t] = oe.value()
        for k, v in lb.values().items():
            acc[k][t] = v
    out = {
        "n": np.arange(1, T + 1),
        "otsd": acc["otsd"],
        "otsd_lb_mst": acc["mst"],
        "otsd_lb_diam": acc["diam"],
        "otsd_lb_nn": acc["nn"],
        "otsd_lb_lattice": acc["lattice"],
        "otsd_lb": acc["lb"],
        "otsd_ub": acc["ub_tour"],
        "opt_ub": acc["ub_opt"],
        "oe": acc["oe"],
    }
    if reference is not None:
        ref = reference.curves(dom, T)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(ref["otsd"] > 0, out["otsd"] / ref["otsd"], np.nan)
        out.update(
            otsd_random=ref["otsd"], otsd_rel=rel, oe_random=ref["oe"], oe_rel=out["oe"] - ref["oe"]
        )
    return out


#: Identity columns a trace carries into :func:`score_domain_trace`'s table.
TRACE_ID_COLUMNS: tuple[str, ...] = ("problem", "dim", "method", "seed")


def score_domain_trace(
    trace: pd.DataFrame,
    domain: Domain | str,
    reference: RandomSearchReference | None = None,
) -> pd.DataFrame:
    """One row per prefix of a BO trace on ``domain``: the trace's identity columns, ``iteration``,
    the columns of :func:`domain_metrics_table` and ``best_so_far`` / ``regret`` (NaN if absent).

    ``trace`` holds raw domain values in ``x_0 .. x_{w-1}`` and is ordered by ``eval_index``
    (docs/interfaces.md, as for :func:`boexplore.metrics.score_trace`).
    """
    import pandas as pd

    if not isinstance(trace, pd.DataFrame) or len(trace) == 0:
        raise ValueError("score_domain_trace expects a non-empty pandas DataFrame")
    cols = x_columns(trace)
    missing = [c for c in ("eval_index", "iteration", *TRACE_ID_COLUMNS) if c not in trace]
    if not cols or missing:
        raise ValueError(f"score_domain_trace: trace lacks x_0.. columns or {missing}")
    if trace["eval_index"].duplicated().any():
        raise ValueError("score_domain_trace: duplicate eval_index values")
    tr = trace.sort_values("eval_index", kind="stable").reset_index(drop=True)
    table = domain_metrics_table(
        tr[cols].to_numpy(dtype=np.float64), domain, reference, name="trace x columns"
    )
    out: dict[str, object] = {c: tr[c].to_numpy() for c in TRACE_ID_COLUMNS}
    out["iteration"] = tr["iteration"].to_numpy()
    out.update(table)
    for c in ("best_so_far", "regret"):
        out[c] = tr[c].to_numpy(dtype=np.float64) if c in tr else np.full(len(tr), np.nan)
    return pd.DataFrame(out)
