"""Moved to :mod:`boexplore.analysis.claimkit.markdown`; this name stays importable."""

import sys

from boexplore.analysis.claimkit import markdown

sys.modules[__name__] = markdown
