"""Exploration metrics for Bayesian optimization (paper 1: OTSD and OE).

All functions take observations ``X`` (T, d) in acquisition order in [0,1]^d
(or pass ``bounds=(2, d)`` to rescale) and return one value per prefix. The ``domain_*``
functions and :class:`Domain` extend them to binary, categorical, integer and mixed domains
(our extension, no statement of the paper; :mod:`boexplore.metrics.domain`).
"""

from boexplore.metrics.bounds import (
    held_karp,
    held_karp_distances,
    mst_weights,
    otsd_lower_bound,
    tour_lower_bounds,
)
from boexplore.metrics.distances import pairwise_distances
from boexplore.metrics.domain import (
    Binary,
    Categorical,
    Continuous,
    Domain,
    DomainError,
    DomainExplorationTracker,
    Integer,
    RandomSearchReference,
    check_domain_bounds,
    domain_distances,
    domain_entropy,
    domain_metrics_table,
    domain_otsd,
    domain_otsd_tour,
    domain_tour_bounds,
    parse_domain,
    score_domain_trace,
)
from boexplore.metrics.entropy import k_schedule, log_unit_ball_volume, observation_entropy
from boexplore.metrics.otsd import otsd, otsd_normalized, otsd_tour, psi, tour_length
from boexplore.metrics.scoring import SCORE_COLUMNS, metrics_table, score_trace
from boexplore.metrics.tracker import ExplorationTracker
from boexplore.metrics.validation import as_points

__all__ = [
    "SCORE_COLUMNS",
    "Binary",
    "Categorical",
    "Continuous",
    "Domain",
    "DomainError",
    "DomainExplorationTracker",
    "ExplorationTracker",
    "Integer",
    "RandomSearchReference",
    "as_points",
    "check_domain_bounds",
    "domain_distances",
    "domain_entropy",
    "domain_metrics_table",
    "domain_otsd",
    "domain_otsd_tour",
    "domain_tour_bounds",
    "held_karp",
    "held_karp_distances",
    "k_schedule",
    "log_unit_ball_volume",
    "metrics_table",
    "mst_weights",
    "observation_entropy",
    "otsd",
    "otsd_lower_bound",
    "otsd_normalized",
    "otsd_tour",
    "pairwise_distances",
    "parse_domain",
    "psi",
    "score_domain_trace",
    "score_trace",
    "tour_length",
    "tour_lower_bounds",
]
