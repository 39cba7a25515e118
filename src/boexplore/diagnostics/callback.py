"""ExplorationCallback: the monitor and stop rule as a BO-loop callback.

Two ways to use it:

* plain BoTorch loop: ``step = cb.observe(x_new, y_new)`` after each evaluation; stop when
  ``step.stop`` (or let ``raise_on_stop=True`` raise :class:`StopRun`);
* ``boexplore.bo.run_bo(..., callback=cb)``: ``run_bo`` calls ``cb(iteration, trace)``;
  the callback feeds the new rows and raises :class:`StopRun` (carrying the trace so far)
  when the rule fires and ``raise_on_stop`` is set.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from boexplore.diagnostics.monitor import ExplorationMonitor, MonitorStep, MonitorThresholds
from boexplore.diagnostics.references import References
from boexplore.diagnostics.stopping import StopRule


class StopRun(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised by the callback when the stop rule fires; ``trace`` / ``step`` hold the state."""

    def __init__(self, step: MonitorStep, trace: Any = None) -> None:
        super().__init__(f"early stop after {step.t} evaluations (state {step.state})")
        self.step = step
        self.trace = trace


class ExplorationCallback:
    """Feeds a :class:`ExplorationMonitor`; optional printing and stopping."""

    def __init__(
        self,
        d: int,
        *,
        n_init: int | None = None,
        thresholds: MonitorThresholds | None = None,
        stop_rule: StopRule | None = None,
        references: References | None = None,
        raise_on_stop: bool = False,
        verbose: bool = False,
    ) -> None:
        self.monitor = ExplorationMonitor(
            d,
            n_init=n_init,
            thresholds=thresholds,
            references=references,
            stop_rule=stop_rule or StopRule(),
        )
        self.raise_on_stop = raise_on_stop
        self.verbose = verbose

    def observe(self, x: ArrayLike, y: ArrayLike | None = None, trace: Any = None) -> MonitorStep:
        """Add new evaluation(s); returns the latest step (raises StopRun if asked to)."""
        step = self.monitor.update(x, y)
        if self.verbose:
            print(
                f"[explore] t={step.t:4d} OTSD/Psi={step.otsd_norm:.4f} "
                f"x random={step.ratio:.2f} state={step.state or '-'}"
                + (" STOP" if step.stop else "")
            )
        if step.stop and self.raise_on_stop:
            raise StopRun(step, trace)
        return step

    def __call__(self, iteration: int, trace: Any) -> None:
        """``run_bo`` hook: ``trace`` is the run's table so far (rows sorted by evaluation)."""
        seen = len(self.monitor)
        new = trace.iloc[seen:]
        if new.empty:
            return
        xcols = [f"x_{i}" for i in range(self.monitor.d)]
        if self.monitor.n_init is None:
            self.monitor.n_init = int(new["is_initial"].sum()) if "is_initial" in new else None
        self.observe(new[xcols].to_numpy(np.float64), new["y"].to_numpy(np.float64), trace)
