"""Fault-injection suite (``pytest -m faults``; every module sets ``pytestmark``).

Each test reproduces one case of issue 23 (a leftover, corrupt or foreign checkpoint; a
bad config or argument; kill -9 mid-run) and checks the run ends with the trace a clean
run gives, or stops up front with an error naming the culprit -- never a wrong result or
a traceback.
"""

from __future__ import annotations

import warnings

import pytest
import torch


@pytest.fixture(autouse=True)
def _quiet_single_thread(monkeypatch):
    # The in-process reference runs are unpinned: CLI runs (in-process and subprocess) and
    # workflow jobs must be too, and an in-process `boexplore run` must not re-exec pytest.
    monkeypatch.setenv("BOEXPLORE_NUMERICS", "unpinned")
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
