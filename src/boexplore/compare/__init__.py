"""Place a user's own BO traces among the reference methods of a finished run.

``boexplore compare TRACE... --problem P --dim d --reference results/<run>`` scores
the traces with the paper-1 exploration metrics (normalised OTSD and ``oe_rel``,
OE relative to uniform random points), evaluated at the same number of
observations as the reference runs, and reports percentiles, the nearest
reference methods and a scatter figure.
"""

from boexplore.compare.core import (
    Placement,
    ReferenceRun,
    load_reference,
    load_user_traces,
    place,
    score_points,
    score_reference,
)

__all__ = [
    "Placement",
    "ReferenceRun",
    "load_reference",
    "load_user_traces",
    "place",
    "score_points",
    "score_reference",
]
