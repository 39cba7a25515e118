"""Moved to :mod:`boexplore.metrics.oe_baseline`; this name stays importable."""

import sys

from boexplore.metrics import oe_baseline

sys.modules[__name__] = oe_baseline
