"""The CPU a measurement was taken on, and the plan line's speed factor per CPU family.

The plan line's wall-time model (``wall`` in ``cost/calibration.json``) was fitted on runs on
one CPU; another CPU family runs the same workflow faster or slower. ``cpu_speed.json`` holds
one row per CPU family on which the default workflow was measured (``data/timings/``): the
CPU, the measured wall time, what the model predicts for that run today, and where the
measurement comes from. It is generated from the timing records
(``python -m boexplore.bench.wall --cpu-table``), never typed.

The plan line detects this machine's CPU (``/proc/cpuinfo``: ``vendor_id``, ``cpu family``,
``model``, the ``avx512f`` flag): on a CPU that a row matches it scales the model's wall time
by that row's factor (measured / predicted); elsewhere it gives the range over every row.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from boexplore.numerics import VENDORS

TABLE = Path(__file__).with_name("cpu_speed.json")
CPUINFO = Path("/proc/cpuinfo")


@dataclass(frozen=True)
class Cpu:
    """A CPU as the records name it; ``None`` where a field is unknown (in a table row: any)."""

    vendor: str
    family: int | None = None
    model_number: int | None = None
    model: str = ""
    avx512f: bool | None = None

    def label(self) -> str:
        """``AMD EPYC (family 25 model 1)``; what is unknown is said so."""
        if self.vendor == "unknown" and not self.model:
            return "unidentified CPU"
        name = self.model or f"{self.vendor} CPU"
        if self.family is None:
            isa = " with AVX-512" if self.avx512f else ""
            return f"{name}{isa} (family and model unknown)"
        if self.model_number is None:
            return f"{name} (family {self.family}, model unknown)"
        return f"{name} (family {self.family} model {self.model_number})"

    def with_article(self) -> str:
        """``an AMD EPYC (...)`` / ``a Xeon (...)``."""
        text = self.label()
        return f"{'an' if text[:1].upper() in 'AEIOU' else 'a'} {text}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Cpu:
        def num(key: str) -> int | None:
            return None if d.get(key) is None else int(d[key])

        avx = d.get("avx512f")
        return cls(
            vendor=str(d.get("vendor") or "unknown"),
            family=num("family"),
            model_number=num("model_number"),
            model=str(d.get("model") or ""),
            avx512f=None if avx is None else bool(avx),
        )


def parse_cpuinfo(text: str) -> Cpu:
    """The first processor of a ``/proc/cpuinfo`` text (vendor ``unknown`` where absent)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        if ":" in line:
            key, value = line.split(":", 1)
            fields.setdefault(key.strip(), value.strip())

    def num(key: str) -> int | None:
        value = fields.get(key, "")
        return int(value) if value.isdigit() else None

    raw = fields.get("vendor_id", "")
    flags = fields.get("flags")
    return Cpu(
        vendor=VENDORS.get(raw, raw or "unknown"),
        family=num("cpu family"),
        model_number=num("model"),
        model=fields.get("model name", ""),
        avx512f=None if flags is None else "avx512f" in flags.split(),
    )


def this_cpu(path: Path = CPUINFO) -> Cpu:
    """This machine's CPU (vendor ``unknown`` where ``/proc/cpuinfo`` cannot be read)."""
    try:
        return parse_cpuinfo(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return Cpu(vendor="unknown")


@dataclass(frozen=True)
class SpeedRow:
    """One CPU family's measured default run: ``factor`` = measured / predicted wall."""

    cpu: Cpu
    measured_wall_s: float
    predicted_wall_s: float
    cores: int
    timing: str
    source: str

    @property
    def factor(self) -> float:
        return self.measured_wall_s / self.predicted_wall_s

    def matches(self, cpu: Cpu) -> bool:
        """Same vendor, and the same family / model number / AVX-512 wherever the row says."""
        row = self.cpu
        if cpu.vendor != row.vendor:
            return False
        pairs = ((row.family, cpu.family), (row.model_number, cpu.model_number))
        if any(want is not None and got != want for want, got in pairs):
            return False
        return row.avx512f is None or cpu.avx512f == row.avx512f

    def to_dict(self) -> dict[str, Any]:
        d = {**self.cpu.to_dict(), **asdict(self)}
        d.pop("cpu")
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SpeedRow:
        return cls(
            cpu=Cpu.from_dict(d),
            measured_wall_s=float(d["measured_wall_s"]),
            predicted_wall_s=float(d["predicted_wall_s"]),
            cores=int(d["cores"]),
            timing=str(d["timing"]),
            source=str(d.get("source", "")),
        )


def load_table(path: Path = TABLE) -> list[SpeedRow]:
    """The committed rows (none where the file is missing)."""
    if not path.exists():
        return []
    return [SpeedRow.from_dict(r) for r in json.loads(path.read_text())["rows"]]


def write_table(rows: Iterable[SpeedRow], path: Path = TABLE) -> Path:
    payload = {
        "about": "per-CPU speed of the plan line's wall model; generated by "
        "python -m boexplore.bench.wall --cpu-table from data/timings/",
        "rows": [r.to_dict() for r in rows],
    }
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    return path


def lookup(cpu: Cpu, rows: Sequence[SpeedRow]) -> SpeedRow | None:
    """The most specific row matching ``cpu`` (most fields set), or None."""

    def specificity(r: SpeedRow) -> int:
        return sum(v is not None for v in (r.cpu.family, r.cpu.model_number, r.cpu.avx512f))

    found = [r for r in rows if r.matches(cpu)]
    return max(found, key=specificity) if found else None


def plan_speed(cpu: Cpu, rows: Sequence[SpeedRow] | None = None) -> dict[str, Any]:
    """What a plan records of the CPU: its label, whether a row calibrates it, and the factor
    range (one factor when calibrated; the range over every row when not; 1 without rows)."""
    rows = load_table() if rows is None else rows
    row = lookup(cpu, rows)
    if row is not None:
        low = high = row.factor
    elif rows:
        low, high = min(r.factor for r in rows), max(r.factor for r in rows)
    else:
        low = high = 1.0
    return {
        "cpu": cpu.label(),
        "calibrated": row is not None,
        "low": low,
        "high": high,
        "families": len(rows),
    }


def central_factor(speed: Mapping[str, Any]) -> float:
    """One factor for an ETA: the geometric middle of the range (the factor when calibrated)."""
    return math.sqrt(float(speed["low"]) * float(speed["high"]))
