"""Measured times name their CPU; the plan line is calibrated per CPU family (issue 42 item 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boexplore.bench import wall
from boexplore.cost import cpu_speed as cs
from boexplore.pipeline import progress as pg
from boexplore.reporting import estimates_text as et

REPO = Path(__file__).resolve().parents[2]
TIMINGS = REPO / "data" / "timings"

FLAGS_AVX2 = "fpu sse sse2 avx fma avx2 bmi2"
FLAGS_AVX512 = FLAGS_AVX2 + " avx512f avx512dq avx512bw"


def cpuinfo(vendor: str, family: int, model: int, name: str, flags: str, cpus: int = 2) -> str:
    """A /proc/cpuinfo text of ``cpus`` identical processors."""
    block = (
        f"processor\t: {{i}}\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\n"
        f"model name\t: {name}\nstepping\t: 1\nflags\t\t: {flags}\n\n"
    )
    return "".join(block.format(i=i) for i in range(cpus))


AMD_ZEN3 = cpuinfo("AuthenticAMD", 25, 1, "AMD EPYC", FLAGS_AVX2)
AMD_ZEN4 = cpuinfo("AuthenticAMD", 25, 17, "AMD EPYC 9654 96-Core Processor", FLAGS_AVX512)
INTEL_EMR = cpuinfo("GenuineIntel", 6, 207, "INTEL(R) XEON(R) PLATINUM 8581C", FLAGS_AVX512)
INTEL_SKX = cpuinfo("GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6148", FLAGS_AVX512)
ARM = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n\n"

#: Two rows like the committed ones: an AMD with AVX-512 of unknown family, an Intel model.
ROWS = [
    cs.SpeedRow(cs.Cpu("AMD", None, None, "AMD EPYC", True), 1980.0, 2000.0, 2, "a.json", "x"),
    cs.SpeedRow(cs.Cpu("Intel", 6, 207, "Intel Xeon", True), 4680.0, 2000.0, 2, "b.json", "y"),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (AMD_ZEN3, cs.Cpu("AMD", 25, 1, "AMD EPYC", False)),
        (AMD_ZEN4, cs.Cpu("AMD", 25, 17, "AMD EPYC 9654 96-Core Processor", True)),
        (INTEL_EMR, cs.Cpu("Intel", 6, 207, "INTEL(R) XEON(R) PLATINUM 8581C", True)),
        (ARM, cs.Cpu("unknown", None, None, "", None)),
        ("", cs.Cpu("unknown")),
    ],
)
def test_cpuinfo_is_read_per_vendor(text: str, expected: cs.Cpu) -> None:
    assert cs.parse_cpuinfo(text) == expected


def test_this_cpu_reads_the_file_and_survives_its_absence(tmp_path: Path) -> None:
    path = tmp_path / "cpuinfo"
    path.write_text(INTEL_EMR)
    assert cs.this_cpu(path) == cs.Cpu("Intel", 6, 207, "INTEL(R) XEON(R) PLATINUM 8581C", True)
    assert cs.this_cpu(tmp_path / "missing") == cs.Cpu("unknown")


@pytest.mark.parametrize(
    ("text", "row"),
    [(INTEL_EMR, 1), (AMD_ZEN4, 0), (AMD_ZEN3, None), (INTEL_SKX, None), (ARM, None)],
)
def test_a_cpu_gets_its_family_row_or_none(text: str, row: int | None) -> None:
    found = cs.lookup(cs.parse_cpuinfo(text), ROWS)
    assert found is (None if row is None else ROWS[row])


def plan_for(text: str | None, rows: list[cs.SpeedRow] = ROWS) -> dict:
    """One job of 3600 predicted CPU-s on 1 core, raw wall model: 1 h before any CPU factor."""
    speed = None if text is None else cs.plan_speed(cs.parse_cpuinfo(text), rows)
    model = {"speed": 1.0, "job_overhead_s": 0.0}
    return pg.make_plan({"bo_run:p/m/seeds0-2": 3600.0}, [], 1, "r", None, 0.0, 0, model, speed)


def test_plan_line_on_a_calibrated_intel_names_it_and_scales_the_wall() -> None:
    plan = plan_for(INTEL_EMR)
    assert pg.plan_summary(plan)["wall_s"] == pytest.approx(3600.0 * 4680.0 / 2000.0)
    line = pg.format_plan_line(plan)
    assert line.endswith(
        "~2 h 20 min wall at 1 cores on an idle INTEL(R) XEON(R) PLATINUM 8581C "
        "(family 6 model 207), calibrated on it"
    ), line


def test_plan_line_on_an_uncalibrated_cpu_gives_the_range_over_the_families() -> None:
    for text in (AMD_ZEN3, INTEL_SKX, ARM):
        plan = plan_for(text)
        lo, hi = pg.plan_summary(plan)["wall_range_s"]
        assert (lo, hi) == pytest.approx((3600.0 * 0.99, 3600.0 * 2.34))
        line = pg.format_plan_line(plan)
        assert (
            "~59 min-2 h 20 min wall at 1 cores on an idle machine (this CPU not calibrated: "
            in line
        )
        assert line.endswith("; range over the 2 CPU families measured)"), line
    assert "unidentified CPU;" in pg.format_plan_line(plan_for(ARM))
    assert "AMD EPYC (family 25 model 1);" in pg.format_plan_line(plan_for(AMD_ZEN3))


def test_plan_line_without_a_cpu_or_a_table_keeps_the_model() -> None:
    assert pg.format_plan_line(plan_for(None)).endswith(
        "~1 h 00 min wall at 1 cores on an idle machine"
    )
    line = pg.format_plan_line(plan_for(INTEL_EMR, rows=[]))
    assert "~1 h 00 min wall at 1 cores on an idle machine (this CPU not calibrated" in line
    assert line.endswith("; no CPU measured)")


@given(
    vendor=st.sampled_from(["GenuineIntel", "AuthenticAMD", "HygonGenuine", "CentaurHauls"]),
    family=st.integers(0, 40),
    model=st.integers(0, 255),
    avx512=st.booleans(),
    factors=st.lists(st.floats(0.2, 5.0), min_size=1, max_size=4),
)
def test_speed_is_the_matching_row_or_the_range_over_all(
    vendor: str, family: int, model: int, avx512: bool, factors: list[float]
) -> None:
    cpu = cs.parse_cpuinfo(
        cpuinfo(vendor, family, model, "X", FLAGS_AVX512 if avx512 else FLAGS_AVX2)
    )
    assert (cpu.family, cpu.model_number, cpu.avx512f) == (family, model, avx512)
    known = [cs.Cpu("Intel", 6, 207, "", True), cs.Cpu("AMD", None, None, "", True),
             cs.Cpu("AMD", 25, 1, "", None), cs.Cpu("Hygon", 24, None, "", None)]  # fmt: skip
    rows = [
        cs.SpeedRow(c, 1000.0 * f, 1000.0, 2, "t", "")
        for c, f in zip(known[: len(factors)], factors, strict=True)
    ]
    speed = cs.plan_speed(cpu, rows)
    row = cs.lookup(cpu, rows)
    assert speed["calibrated"] == (row is not None)
    if row is not None:
        assert speed["low"] == speed["high"] == pytest.approx(row.factor)
        assert row.cpu.vendor == cpu.vendor
    else:
        assert (speed["low"], speed["high"]) == (
            min(r.factor for r in rows),
            max(r.factor for r in rows),
        )
    assert speed["low"] <= cs.central_factor(speed) * (1 + 1e-12)
    assert cs.central_factor(speed) <= speed["high"] * (1 + 1e-12)


# --- the committed table against the committed measurements ---------------------------------
def test_calibrated_plan_line_is_within_1_5x_on_every_measured_cpu() -> None:
    rows = cs.load_table()
    assert {r.cpu.vendor for r in rows} >= {"AMD", "Intel"}
    misses = 0
    for row in rows:
        rec = json.loads((REPO / row.timing).read_text())
        base = wall.predicted_now_s(rec, REPO)
        assert base is not None
        speed = cs.plan_speed(cs.Cpu.from_dict(rec["cpu"]), rows)
        assert speed["calibrated"]
        ratio = base * speed["low"] / rec["wall_s"]
        assert 1 / 1.5 <= ratio <= 1.5, (row.cpu.label(), ratio)
        # and a CPU the table does not know gets a range that holds this measurement
        other = cs.plan_speed(cs.Cpu("unknown"), rows)
        assert (
            base * other["low"] <= rec["wall_s"] * 1.01
            and rec["wall_s"] <= base * other["high"] * 1.01
        )
        misses += not 1 / 1.5 <= base / rec["wall_s"] <= 1.5
    assert misses >= 1  # control: without the CPU factor the model misses the Intel run by > 1.5x


def test_the_table_is_what_the_timing_records_give() -> None:
    made, committed = wall.cpu_table(REPO), cs.load_table()
    assert [(r.cpu, r.measured_wall_s, r.timing) for r in made] == [
        (r.cpu, r.measured_wall_s, r.timing) for r in committed
    ], "regenerate: python -m boexplore.bench.wall --cpu-table"
    for new, old in zip(made, committed, strict=True):  # a refitted cost model asks for a new table
        assert new.predicted_wall_s == pytest.approx(old.predicted_wall_s, rel=0.05)


def test_every_measured_time_names_its_cpu() -> None:
    for path in sorted(TIMINGS.glob("*.json")):
        rec = json.loads(path.read_text())
        cpu = cs.Cpu.from_dict(rec["cpu"])
        assert cpu.vendor in ("AMD", "Intel"), path.name
        assert f"of {cpu.with_article()}" in et.time_phrase(REPO, path.stem), path.name


def test_time_phrase_lists_the_same_command_on_other_idle_cpus(tmp_path: Path) -> None:
    timings = tmp_path / "data" / "timings"
    timings.mkdir(parents=True)
    amd = {"vendor": "AMD", "family": 25, "model_number": 1, "model": "AMD EPYC", "avx512f": False}
    intel = {"vendor": "Intel", "family": 6, "model_number": 207, "model": "Intel Xeon"}
    base = {"command": "snakemake --cores 2", "cores": 2, "load_before": 0.0}
    for name, extra in [
        ("default", {"wall_s": 1980, "cpu": amd}),
        ("default-intel", {"wall_s": 4680, "cpu": intel}),
        ("default-loaded", {"wall_s": 9000, "cpu": amd, "load_before": 7.0}),
        ("default-smoke", {"wall_s": 290, "cpu": amd, "command": "snakemake --configfile x"}),
    ]:
        (timings / f"{name}.json").write_text(json.dumps({**base, **extra}))
    assert et.time_phrase(tmp_path, "default") == (
        "33 min on 2 idle cores of an AMD EPYC (family 25 model 1) and "
        "1 h 18 min on 2 idle cores of an Intel Xeon (family 6 model 207)"
    )
    (timings / "default.json").write_text(json.dumps({**base, "wall_s": 1980}))
    assert et.time_phrase(tmp_path, "default").startswith(
        "33 min on 2 idle cores of a CPU not recorded"
    )


def test_a_new_measurement_records_its_cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "cpuinfo"
    fake.write_text(INTEL_EMR)
    monkeypatch.setattr(wall, "this_cpu", lambda: cs.this_cpu(fake))
    rec = wall.measure(["true"], "probe")
    assert rec["cpu"] == {"vendor": "Intel", "family": 6, "model_number": 207,
                          "model": "INTEL(R) XEON(R) PLATINUM 8581C", "avx512f": True}  # fmt: skip
