"""Suite-wide test settings.

Hypothesis' per-example deadline (200 ms) measures the machine, not the property: on a loaded
2-core CI runner a correct example can exceed it, so deadlines are off for every property test.
"""

import os

import pytest
from hypothesis import settings

# An in-process `boexplore run` (main([...]) in a test) pins its numerics profile and, with
# torch already loaded, re-executes the *whole process* -- pytest itself -- once: the suite
# then stops half way and still exits 0. Tests run unpinned unless they set a profile; the
# determinism tests build their own environments (tests/determinism).
os.environ.setdefault("BOEXPLORE_NUMERICS", "unpinned")

settings.register_profile("boexplore", deadline=None)
settings.load_profile("boexplore")


@pytest.fixture(autouse=True)
def _close_matplotlib_figures():
    """Each test starts without open matplotlib figures (some tests assert none leak)."""
    yield
    import sys

    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


@pytest.fixture
def quiet_single_thread():
    """One torch thread and no library warnings (BoTorch / GPyTorch numerics chatter)."""
    import warnings

    import torch

    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


MAX_AUTO_WORKERS = 8


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``pytest -n auto``: one worker per core, at most eight.

    Each worker imports torch and BoTorch (about 0.5-1 GB at peak); on a many-core machine one
    worker per core would spend more memory than the suite gains in time.
    """
    return max(1, min(os.cpu_count() or 1, MAX_AUTO_WORKERS))
