"""Live exploration diagnosis, early stopping and portfolio advice from OTSD (paper 1's uses).

numpy-only (like :mod:`boexplore.metrics`): the monitor, the stop rule, the advice and the
callback run inside any BO loop without pandas or torch. ``boexplore diagnose`` (timeline
table and figure of a user's trace) needs the ``pipeline`` extra.
"""

from boexplore.diagnostics.advice import Advice, suggest
from boexplore.diagnostics.callback import ExplorationCallback, StopRun
from boexplore.diagnostics.monitor import (
    BALANCED,
    OVER,
    STATES,
    UNDER,
    ExplorationMonitor,
    MonitorStep,
    MonitorThresholds,
    assess,
    hysteresis,
    raw_states,
)
from boexplore.diagnostics.references import References, load_references, uniform_otsd_curves
from boexplore.diagnostics.stopping import StopRule, incumbent_stop_point, stop_point
from boexplore.diagnostics.verdict import StopVerdict, load_stop_verdict

__all__ = [
    "BALANCED",
    "OVER",
    "STATES",
    "UNDER",
    "Advice",
    "ExplorationCallback",
    "ExplorationMonitor",
    "MonitorStep",
    "MonitorThresholds",
    "References",
    "StopRule",
    "StopRun",
    "StopVerdict",
    "assess",
    "hysteresis",
    "incumbent_stop_point",
    "load_references",
    "load_stop_verdict",
    "raw_states",
    "stop_point",
    "suggest",
    "uniform_otsd_curves",
]
