"""Suite-wide test settings.

Hypothesis' per-example deadline (200 ms) measures the machine, not the property: on a loaded
2-core CI runner a correct example can exceed it, so deadlines are off for every property test.
"""

from hypothesis import settings

settings.register_profile("boexplore", deadline=None)
settings.load_profile("boexplore")
