"""The distance on a domain: mismatches of the discrete variables plus the box distance of the rest.

Our extension, no statement of paper 1. For points x, y of a domain

    dist(x, y) = #{binary / categorical j : x_j != y_j} + || u(x) - u(y) ||_2

where u scales every continuous and integer variable to [0, 1] by its range. The rule:

- on a box it *is* the paper's distance (Euclidean on [0, 1]^d), so every box result carries
  over unchanged; on binary / categorical variables it is the Hamming distance (the number of
  single-variable moves between two points: the graph distance of the product of complete
  graphs, which local search walks on);
- changing one variable moves the distance by at most 1 (a mismatch adds 0 or 1, one scaled
  coordinate moves a Euclidean norm by at most its own change), so no variable weighs more than
  another whatever its number of levels, and the diameter is h + sqrt(e) for h discrete and e
  scaled variables;
- it is a sum of two metrics on the two blocks, hence a metric (triangle inequality), and it
  depends on level codes only through equality, so relabelling the levels of a categorical
  variable (or swapping 0 and 1 of a binary one) changes no distance.

Summing the blocks (not sqrt of the sum of squares) keeps the discrete part an integer count,
so the bounds of :mod:`boexplore.metrics.domain.bounds` (distinct points are at least 1 apart,
a tour edge is at most the diameter) are stated in mismatches, as a discrete user reads them.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from boexplore.metrics.distances import distance_rows, distances_to
from boexplore.metrics.domain.variables import DomainPoints


def distances_to_point(P: DomainPoints, i: int, upto: int) -> np.ndarray:
    """Distances from point ``i`` of ``P`` to points 0 .. upto-1."""
    codes, scaled = P.codes, P.scaled
    out = np.zeros(upto)
    if codes.shape[1]:
        out += np.count_nonzero(codes[:upto] != codes[i], axis=1)
    if scaled.shape[1]:
        out += distances_to(scaled[:upto], scaled[i])
    return out


def domain_distance_rows(P: DomainPoints) -> Iterator[np.ndarray]:
    """Yield ``D[t, :t]`` (distances from point t to the earlier points) for t = 0 .. T-1.

    A domain of continuous variables only streams the box's rows (``distances.distance_rows``),
    so its numbers are the box metrics' to the last bit.
    """
    if not P.codes.shape[1]:
        yield from distance_rows(P.scaled)
        return
    for t in range(len(P)):
        yield distances_to_point(P, t, t)


def domain_pairwise(P: DomainPoints) -> np.ndarray:
    """Full symmetric (T, T) distance matrix (tests, exact tours, small T)."""
    T = len(P)
    D = np.zeros((T, T))
    for t, row in enumerate(domain_distance_rows(P)):
        D[t, :t] = row
        D[:t, t] = row
    return D
