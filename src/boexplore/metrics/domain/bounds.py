"""Bounds on tours through points of a domain, and their check on a trace.

Our extension, no statement of paper 1. Which of the box's bounds carry over (OPT_t: the
shortest closed tour through the first t points; OTSD_t the heuristic's, so OPT_t <= OTSD_t):

- **Lower bounds on OPT_t (carry over unchanged).** The MST weight, 2 x the largest pairwise
  distance and the sum of nearest-neighbour distances are bounds for *any* metric (their proofs,
  in ``metrics.bounds``, use the triangle inequality only), so they hold for the domain distance.
- **Lattice bound (new, finite domains).** Without a continuous variable two distinct points
  are at least ``Domain.lattice_step`` apart (1 mismatch on a binary / categorical domain), so a
  tour through m >= 2 distinct points, which has m edges, has OPT_t >= m * step: at least m
  mismatches on {0,1}^d or a categorical product (the MST alone gives m - 1).
- **Edge bound (new, any domain).** A closed tour through t >= 2 points has t edges, none longer
  than the diameter h + sqrt(e), so OTSD_t <= t * diameter: d * t on {0,1}^d.
- **Gray-code bound on OPT_t (new, finite domains).** The reflected mixed-radix Gray code walks
  through every point of the domain changing one variable by one step at a time (cost <= 1),
  and visiting the t points in that order is no longer than the walk (triangle inequality), so
  OPT_t <= (size - 1) + diameter, the walk plus the edge that closes it. It bounds OPT, not the
  heuristic, so it is checked against the lower bounds and exact tours, not against OTSD.
- **Psi does not carry over.** Psi(d, t) = 2 sqrt(5d) (1.5 t)^(1-1/d) is a Euclidean
  space-filling argument; under mismatches t random points of {0,1}^d are about d/2 apart, so
  OTSD_t grows like d t / 2, above Psi for large d (the tests show one). The normalisation on a
  domain is the random-search reference (``metrics.domain.reference``) instead.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from boexplore.metrics.bounds import LowerBoundAccumulator
from boexplore.metrics.domain.distance import domain_distance_rows
from boexplore.metrics.domain.spec import parse_domain
from boexplore.metrics.domain.variables import Domain

#: Per-prefix keys of :func:`domain_tour_bounds`.
DOMAIN_BOUND_KEYS: tuple[str, ...] = ("mst", "diam", "nn", "lattice", "lb", "ub_tour", "ub_opt")
#: Float round-off allowance of :func:`check_domain_bounds`.
REL_TOL = 1e-9


class DomainBoundAccumulator:
    """The box's lower bounds plus the lattice, edge and Gray-code bounds, prefix by prefix."""

    def __init__(self, domain: Domain, capacity: int = 64) -> None:
        self.box = LowerBoundAccumulator(capacity)
        self.step = domain.lattice_step
        self.diameter = domain.diameter
        self.gray = domain.size - 1.0 + domain.diameter if domain.is_finite else np.inf

    def add(self, dist_row: np.ndarray) -> None:
        """Add the next point given its distances to all earlier points."""
        self.box.add(dist_row)

    def values(self) -> dict[str, float]:
        """Current bounds (keys of ``DOMAIN_BOUND_KEYS``); ``lb`` is the largest lower bound."""
        out = self.box.values()
        t = self.box.n
        distinct = len(self.box.mst.ids)
        out["lattice"] = distinct * self.step if distinct >= 2 else 0.0
        out["lb"] = max(out["mst"], out["diam"], out["nn"], out["lattice"])
        out["ub_tour"] = t * self.diameter if t >= 2 else 0.0
        out["ub_opt"] = min(out["ub_tour"], self.gray)
        return out


def domain_tour_bounds(X: ArrayLike, domain: Domain | str) -> dict[str, np.ndarray]:
    """Per-prefix bounds of raw points ``X`` on ``domain`` (arrays keyed by ``DOMAIN_BOUND_KEYS``)."""
    dom = parse_domain(domain)
    P = dom.encode(X)
    acc = DomainBoundAccumulator(dom, capacity=len(P))
    out = {k: np.empty(len(P)) for k in DOMAIN_BOUND_KEYS}
    for t, row in enumerate(domain_distance_rows(P)):
        acc.add(row)
        for k, v in acc.values().items():
            out[k][t] = v
    return out


def check_domain_bounds(otsd: ArrayLike, bounds: dict[str, ArrayLike]) -> dict[str, np.ndarray]:
    """Per prefix: ``inside_lower`` (lb <= OTSD), ``inside_upper`` (OTSD <= t x diameter),
    ``consistent`` (lb <= ub_opt: the lower bounds below a proven upper bound on OPT) and
    ``inside_all``. A False anywhere is a bug in the tour or in a bound."""
    o = np.asarray(otsd, dtype=np.float64)
    lb, ub, ub_opt = (np.asarray(bounds[k], dtype=np.float64) for k in ("lb", "ub_tour", "ub_opt"))
    lower = lb <= o * (1 + REL_TOL) + 1e-12
    upper = o <= ub * (1 + REL_TOL) + 1e-12
    consistent = lb <= ub_opt * (1 + REL_TOL) + 1e-12
    return {
        "inside_lower": lower,
        "inside_upper": upper,
        "consistent": consistent,
        "inside_all": lower & upper & consistent,
    }
