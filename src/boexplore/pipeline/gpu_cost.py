"""The GPU column of the cost model: GPU-hours of the BO jobs whose method runs on cuda.

The cost model (``pipeline/cost.py``) predicts CPU seconds on one core. A job on a GPU takes
``cpu_s / speedup`` GPU-seconds, where ``speedup`` is the CPU seconds of one BO step on one
core over the wall seconds of the same step on the GPU, per acquisition function: the
calibration's ``gpu.speedup.<base>`` (e.g. ``{"gpu": {"speedup": {"kg": 5.0}, "source":
"..."}}``), measured with ``python -m boexplore.bench.kg_device``. The shipped
calibration has no such entry (no GPU has been measured), so the column reads "not measured"
and no GPU-hours are made up. The main table keeps counting these jobs at their CPU cost, and
their SLURM runtime requests stay the CPU estimate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from boexplore.bo.methods import parse_method
from boexplore.pipeline.cost import JobCost
from boexplore.pipeline.gpu_jobs import cuda_methods

NOT_MEASURED = "not measured"


def gpu_speedup(cal: Mapping[str, Any], base: str) -> float | None:
    """Measured CPU-step / GPU-step time ratio of acquisition ``base`` (None: not measured)."""
    value = ((cal.get("gpu") or {}).get("speedup") or {}).get(base)
    return None if value is None else float(value)


@dataclass(frozen=True)
class GpuRow:
    """The jobs of one method on cuda: their CPU cost and, where measured, GPU-hours."""

    method: str
    base: str
    jobs: int
    cpu_h: float
    gpu_h: float | None


def gpu_rows(jobs: Iterable[JobCost], config: Mapping[str, Any], cal: Mapping[str, Any]
             ) -> list[GpuRow]:  # fmt: skip
    """One row per method label on cuda (config order); ``bo_run`` keys are problem/method/chunk."""
    cuda = cuda_methods(config)
    cpu_s = {m: [j.cpu_s for j in jobs if j.rule == "bo_run" and j.key.split("/")[1] == m]
             for m in cuda}  # fmt: skip
    rows = []
    for method in cuda:
        base = parse_method(config["methods"][method]).base
        speedup = gpu_speedup(cal, base)
        cpu_h = sum(cpu_s[method]) / 3600.0
        gpu_h = None if speedup is None else cpu_h / speedup
        rows.append(GpuRow(method, base, len(cpu_s[method]), cpu_h, gpu_h))
    return rows


def _hours(value: float | None) -> str:
    return NOT_MEASURED if value is None else f"{value:.1f}"


def format_gpu_column(rows: list[GpuRow]) -> str:
    """The GPU table of ``boexplore estimate`` ("" when no method runs on cuda)."""
    if not rows:
        return ""
    head = f"{'method on cuda':<16} {'base':<8} {'jobs':>6} {'CPU-h':>10} {'GPU-h':>14}"
    lines = ["", "GPU column (bo_run jobs of methods with bo.device: cuda):", head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r.method:<16} {r.base:<8} {r.jobs:>6} {r.cpu_h:>10.1f} {_hours(r.gpu_h):>14}"
        )
    total_gpu = None if any(r.gpu_h is None for r in rows) else sum(r.gpu_h or 0 for r in rows)
    lines += ["-" * len(head), f"{'total':<16} {'':<8} {sum(r.jobs for r in rows):>6} "
              f"{sum(r.cpu_h for r in rows):>10.1f} {_hours(total_gpu):>14}"]  # fmt: skip
    missing = sorted({r.base for r in rows if r.gpu_h is None})
    if missing:
        lines.append(
            f"GPU-h {NOT_MEASURED}: the calibration has no CPU->GPU speed factor "
            f"(gpu.speedup.<base>) for {', '.join(missing)}; measure it on a GPU with "
            "`python -m boexplore.bench.kg_device`."
        )
    lines.append(
        "CPU-h: what these jobs cost on one CPU core (the table above counts them so, and "
        "their SLURM runtime requests are that estimate)."
    )
    return "\n".join(lines)
