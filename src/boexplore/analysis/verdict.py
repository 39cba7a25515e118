"""Moved to :mod:`boexplore.analysis.claimkit.verdict`; this name stays importable."""

import sys

from boexplore.analysis.claimkit import verdict

sys.modules[__name__] = verdict
