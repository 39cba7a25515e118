"""Exploration metrics beyond the box: binary, categorical, integer and mixed domains.

Our extension, no statement of paper 1 (its metrics are defined on [0, 1]^d only).

- ``variables`` / ``spec``: the domain description and its text / JSON forms, point checks
  (one error, :class:`DomainError`);
- ``distance``: mismatches on binary / categorical variables + the box distance on the scaled
  continuous / integer ones;
- ``scoring`` / ``tracker``: OTSD (the box's insertion heuristic) and the per-prefix table,
  batch and incremental;
- ``entropy``: OE by a k-NN estimator with the domain's ball volumes;
- ``bounds``: the tour bounds that carry over and the new ones, and their check;
- ``reference``: random search on the domain as the reference of OTSD and OE.
"""

from boexplore.metrics.domain.bounds import (
    DOMAIN_BOUND_KEYS,
    check_domain_bounds,
    domain_tour_bounds,
)
from boexplore.metrics.domain.entropy import domain_entropy
from boexplore.metrics.domain.reference import (
    RandomSearchReference,
    expected_distance,
    random_tour_length,
)
from boexplore.metrics.domain.scoring import (
    DOMAIN_COLUMNS,
    domain_distances,
    domain_metrics_table,
    domain_otsd,
    domain_otsd_tour,
    score_domain_trace,
)
from boexplore.metrics.domain.spec import parse_domain
from boexplore.metrics.domain.tracker import DomainExplorationTracker
from boexplore.metrics.domain.variables import (
    Binary,
    Categorical,
    Continuous,
    Domain,
    DomainError,
    Integer,
)

__all__ = [
    "DOMAIN_BOUND_KEYS",
    "DOMAIN_COLUMNS",
    "Binary",
    "Categorical",
    "Continuous",
    "Domain",
    "DomainError",
    "DomainExplorationTracker",
    "Integer",
    "RandomSearchReference",
    "check_domain_bounds",
    "domain_distances",
    "domain_entropy",
    "domain_metrics_table",
    "domain_otsd",
    "domain_otsd_tour",
    "domain_tour_bounds",
    "expected_distance",
    "parse_domain",
    "random_tour_length",
    "score_domain_trace",
]
