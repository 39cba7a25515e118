"""Moved to :mod:`boexplore.analysis.claimkit.power`; this name stays importable."""

import sys

from boexplore.analysis.claimkit import power

sys.modules[__name__] = power
