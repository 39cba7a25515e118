"""Exploration metrics of Ax experiments (the ``ax`` extra; Ax itself needs torch).

Live: :class:`AxExploration` (``explore.observe(client)`` after completing trials) stores
OTSD, normalised OTSD and OE in each completed trial's run metadata. After the fact:
:func:`load_snapshot_points` reads the JSON snapshot ``Client.save_to_json_file`` writes,
for ``boexplore diagnose --ax-snapshot``. How parameters become coordinates and which
experiment shapes are refused: :mod:`boexplore.integrations.ax.space`.
"""

from boexplore.integrations.ax.experiment import experiment_points, load_snapshot_points
from boexplore.integrations.ax.live import AxExploration
from boexplore.integrations.ax.space import AxSpace

__all__ = ["AxExploration", "AxSpace", "experiment_points", "load_snapshot_points"]
