"""Moved to :mod:`boexplore.analysis.claimkit.stats`; this name stays importable."""

import sys

from boexplore.analysis.claimkit import stats

sys.modules[__name__] = stats
