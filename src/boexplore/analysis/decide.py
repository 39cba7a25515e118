"""Moved to :mod:`boexplore.analysis.claimkit.decide`; this name stays importable."""

import sys

from boexplore.analysis.claimkit import decide

sys.modules[__name__] = decide
