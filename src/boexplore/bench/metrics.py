"""Micro-benchmarks: ``python -m boexplore.bench.metrics [--T 500 1000 ...] [--d 2 20 180]``.

Prints T, d and wall-clock seconds of each metric (all prefixes) on uniform
random points. No assertions; figures go into reports.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

DEFAULT_T: tuple[int, ...] = (500, 1000, 2000, 4000)
DEFAULT_D: tuple[int, ...] = (2, 20, 180)


def _timed(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _tracker_seconds(X) -> float:
    """Seconds per ``ExplorationTracker.update`` for the last 10% of the points (largest t)."""
    from boexplore.metrics import ExplorationTracker

    T = X.shape[0]
    split = T - max(1, T // 10)
    tr = ExplorationTracker(X.shape[1], capacity=T).update(X[:split])
    start = time.perf_counter()
    for x in X[split:]:
        tr.update(x)
    return (time.perf_counter() - start) / (T - split)


def bench_metrics(
    Ts: list[int],
    ds: list[int],
    repeat: int = 1,
    with_bounds: bool = False,
    with_tracker: bool = False,
) -> list[dict]:
    """Time OTSD, OE (both variants in one pass); optionally tour bounds and tracker updates."""
    import numpy as np

    from boexplore.metrics import observation_entropy, otsd, tour_lower_bounds

    rng = np.random.default_rng(0)
    rows = []
    for T in Ts:
        for d in ds:
            X = rng.random((T, d))
            row = {
                "T": T,
                "d": d,
                "otsd_s": _timed(lambda X=X: otsd(X), repeat),
                "oe_s": _timed(lambda X=X: observation_entropy(X), repeat),
            }
            if with_bounds:
                row["bounds_s"] = _timed(lambda X=X: tour_lower_bounds(X), repeat)
            if with_tracker:
                row["tracker_update_s"] = _tracker_seconds(X)
            rows.append(row)
            print(
                "  ".join(
                    f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()
                ),
                flush=True,
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m boexplore.bench.metrics``."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    m = argparse.ArgumentParser(
        prog="python -m boexplore.bench.metrics", description="time OTSD and OE over a (T, d) grid"
    )
    m.add_argument("--T", nargs="+", type=int, default=list(DEFAULT_T))
    m.add_argument("--d", nargs="+", type=int, default=list(DEFAULT_D))
    m.add_argument("--repeat", type=int, default=1)
    m.add_argument(
        "--bounds", action="store_true", help="also time the tour lower bounds (slow MST)"
    )
    m.add_argument(
        "--tracker", action="store_true", help="also time one ExplorationTracker update at t ~ T"
    )
    args = m.parse_args(argv)
    bench_metrics(args.T, args.d, args.repeat, args.bounds, args.tracker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
