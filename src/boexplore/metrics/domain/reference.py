"""Random search on a domain as the reference of OTSD and OE (our extension, not the paper's).

Paper 1 normalises OTSD by Psi(d, t), a bound for the box that does not carry over to
mismatch distances (``metrics.domain.bounds``). On a domain both metrics are compared with
uniform random search on the same domain and budget: ``otsd_rel = OTSD / E[OTSD of random
search]`` (1 = as spread as random search) and ``oe_rel = OE - E[OE of random search]``, the
box's ``oe_rel`` convention.

- **Closed form** where one exists: the mean distance between two uniform points,
  sum_j (1 - 1/k_j) over the discrete variables plus E|U - V| over a single scaled one (1/3 for a
  continuous variable, (n + 2) / (3 (n + 1)) for an integer one with n + 1 levels), and from it
  the expected length of the tour that visits t uniform points in arrival order, t * E[dist]
  (t >= 2: each of its t edges joins two independent uniform points).
- **Simulation** for the heuristic's OTSD and for OE (no closed form): a seeded Monte-Carlo
  mean over ``n_rep`` samples, cached per domain like the box's uniform-OE baseline; one
  sample of the largest size gives every prefix (a prefix of a uniform sample is uniform).
"""

from __future__ import annotations

import zlib

import numpy as np

from boexplore.metrics.domain.distance import domain_distance_rows
from boexplore.metrics.domain.entropy import DomainEntropyAccumulator
from boexplore.metrics.domain.spec import parse_domain
from boexplore.metrics.domain.variables import Continuous, Domain, Integer
from boexplore.metrics.tour import TourBuilder


def expected_distance(domain: Domain | str) -> float | None:
    """E[dist(U, V)] for independent uniform points; None when no closed form is known here
    (more than one continuous / integer variable)."""
    dom = parse_domain(domain)
    scaled = [v for v in dom.variables if isinstance(v, Continuous | Integer)]
    if len(scaled) > 1:
        return None
    mean = sum(1.0 - 1.0 / k for k in dom.levels)
    for v in scaled:
        if isinstance(v, Continuous):
            mean += 1.0 / 3.0
        else:
            n = int(v.upper - v.lower)
            mean += (n + 2) / (3.0 * (n + 1))
    return float(mean)


def random_tour_length(domain: Domain | str, t: np.ndarray | int) -> np.ndarray | None:
    """E[length of the closed tour through t uniform points in arrival order] = t * E[dist]
    (0 at t = 1); None where ``expected_distance`` has no closed form."""
    mean = expected_distance(domain)
    if mean is None:
        return None
    tt = np.asarray(t, dtype=np.float64)
    return np.where(tt >= 2, tt * mean, 0.0)


def prefix_metrics(X: np.ndarray, domain: Domain) -> tuple[np.ndarray, np.ndarray]:
    """OTSD and OE of every prefix of raw points ``X`` (one pass over the distances)."""
    P = domain.encode(X)
    tour = TourBuilder(domain.width, capacity=len(P))
    oe = DomainEntropyAccumulator(domain, capacity=len(P))
    otsd, ent = np.empty(len(P)), np.empty(len(P))
    for t, row in enumerate(domain_distance_rows(P)):
        otsd[t] = tour.add(row)
        oe.add(row)
        ent[t] = oe.value()
    return otsd, ent


class RandomSearchReference:
    """Seeded Monte-Carlo mean OTSD and OE of uniform random points, cached per domain."""

    def __init__(self, n_rep: int = 16, seed: int = 0) -> None:
        if int(n_rep) != n_rep or n_rep < 1:
            raise ValueError(f"n_rep must be a positive integer, got {n_rep!r}")
        self.n_rep = int(n_rep)
        self.seed = int(seed)
        self._cache: dict[str, dict[str, np.ndarray]] = {}

    def curves(self, domain: Domain | str, n_max: int) -> dict[str, np.ndarray]:
        """Mean ``otsd`` and ``oe`` of random search for N = 1 .. n_max (index N - 1)."""
        dom = parse_domain(domain)
        if int(n_max) != n_max or n_max < 1:
            raise ValueError(f"n_max must be a positive integer, got {n_max!r}")
        have = self._cache.get(dom.spec)
        if have is not None and have["otsd"].size >= n_max:
            return {k: v[:n_max] for k, v in have.items()}
        key = zlib.crc32(dom.spec.encode())  # a stream per domain, stable across processes
        otsd, oe = np.empty((self.n_rep, n_max)), np.empty((self.n_rep, n_max))
        for r in range(self.n_rep):
            rng = np.random.default_rng([self.seed, key, r])
            otsd[r], oe[r] = prefix_metrics(dom.sample(rng, n_max), dom)
        with np.errstate(all="ignore"):
            curves = {"otsd": otsd.mean(axis=0), "oe": _nanmean(oe)}
        self._cache[dom.spec] = curves
        return curves

    def table(self) -> dict[str, np.ndarray]:
        """Long table (``domain``, ``n``, ``otsd_random``, ``oe_random``) of what is cached."""
        rows = sorted(self._cache.items())
        return {
            "domain": np.concatenate([[s] * c["otsd"].size for s, c in rows] or [[]]).astype(str),
            "n": np.concatenate([np.arange(1, c["otsd"].size + 1) for _, c in rows] or [[]]),
            "otsd_random": np.concatenate([c["otsd"] for _, c in rows] or [[]]),
            "oe_random": np.concatenate([c["oe"] for _, c in rows] or [[]]),
        }


def _nanmean(a: np.ndarray) -> np.ndarray:
    finite = np.isfinite(a)
    total = np.where(finite, a, 0.0).sum(axis=0)
    return np.where(finite.any(axis=0), total / np.maximum(finite.sum(axis=0), 1), np.nan)
