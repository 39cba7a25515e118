"""CPU cost of a workflow config from the engine's measured per-iteration timings.

Used to size ``config/replicate.yaml`` before running it. The cost model is a
piecewise log-linear interpolation in d of the CPU seconds per BO iteration
measured in ``docs/bo_timings.md`` (one torch thread, n ≤ 100 observations):
GP fit (cold fits, the engine default, or warm-started when the config's
``bo.warm_start`` is true) + acquisition optimisation (rough table, LogEI),
with method factors for the expensive acquisition functions,
plus a fixed per-job start-up cost (Python + torch import). Random / Sobol cost nothing per
iteration. Numbers are estimates, to be checked against ``runs_summary.csv``
of a finished run.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

# CPU seconds per GP fit at n <= 100 (docs/bo_timings.md, "Warm-started vs cold" table):
# cold fits (the engine default, plain BoTorch) at n = 100, rounded up; warm-started fits at
# 1.5 x the warm table (covers the cold first fit and growth of n).
FIT_COLD_S: dict[int, float] = {2: 0.2, 10: 0.5, 50: 4.2, 100: 4.8, 180: 5.6}
FIT_WARM_S: dict[int, float] = {2: 0.1, 10: 0.45, 50: 2.2, 100: 2.1, 180: 2.1}
ACQ_S: dict[int, float] = {2: 0.1, 10: 0.9, 50: 0.8, 100: 1.2, 180: 1.7}
# acquisition-cost factors relative to LogEI (same tables)
ACQ_FACTOR: dict[str, float] = {
    "mes": 2.5,
    "gibbon": 2.0,
    "jes": 15.0,
    "pes": 25.0,
    "kg": 30.0,
    "ts": 0.5,
}
FREE = {"random", "sobol"}
JOB_OVERHEAD_S = 6.0


def _interp(table: Mapping[int, float], d: int) -> float:
    ks = np.array(sorted(table), dtype=float)
    vs = np.array([table[int(k)] for k in ks])
    return float(np.interp(math.log(max(d, 1)), np.log(ks), vs))


def iteration_seconds(
    base: str, d: int, q: int = 1, polish: bool = False, warm_start: bool = False
) -> float:
    """CPU seconds of one BO iteration (fit + acquisition of a batch of ``q``)."""
    if base in FREE:
        return 0.0
    acq = _interp(ACQ_S, d) * ACQ_FACTOR.get(base, 1.0) * (1.0 + 0.7 * (q - 1))
    if base == "ts" and polish:
        acq *= 3.0
    return _interp(FIT_WARM_S if warm_start else FIT_COLD_S, d) + acq


def _parse(spec: str) -> tuple[str, int, bool]:
    """(base AF, q, TS polish) from a method spec like ``ts(polish=true)+q4``."""
    core, *mods = str(spec).replace(" ", "").lower().split("+")
    base = core.split("(", 1)[0]
    q = 1
    for m in mods:
        if m.startswith("q") and m[1:].isdigit():
            q = int(m[1:])
    return base, q, "polish=true" in core


def estimate_cpu_hours(config: Mapping[str, Any]) -> dict[str, Any]:
    """Estimated CPU hours of the BO runs of ``config`` (total and per problem)."""
    methods: Mapping[str, str] = config["methods"]
    seeds = len(config["seeds"])
    per_job = int(config.get("seeds_per_job", 1))
    excl = config.get("exclude", [])
    warm = bool((config.get("bo") or {}).get("warm_start", False))
    per_problem: dict[str, float] = {}
    runs = 0
    for label, entry in config["problems"].items():
        d = int(entry["dim"])
        budget = int(entry.get("budget") or config.get("budget", 100))
        n_init = int(entry.get("n_init") or config.get("n_init", 10))
        total = 0.0
        for mlabel, spec in methods.items():
            if any(
                fnmatch.fnmatch(label, r["problem"]) and fnmatch.fnmatch(mlabel, r["method"])
                for r in excl
            ):
                continue
            base, q, polish = _parse(spec)
            iters = math.ceil(max(0, budget - n_init) / q)
            jobs = math.ceil(seeds / per_job)
            total += (
                seeds * iters * iteration_seconds(base, d, q, polish, warm) + jobs * JOB_OVERHEAD_S
            )
            runs += seeds
        per_problem[label] = total / 3600.0
    return {
        "warm_start": warm,
        "cpu_hours": sum(per_problem.values()),
        "per_problem": per_problem,
        "runs": runs,
    }
