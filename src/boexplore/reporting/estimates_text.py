"""Generated text on time and cost: measured timings, plan lines and cost-model estimates."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

from boexplore.reporting.text_format import MISSING, cell, for_readers

# --- timings --------------------------------------------------------------------------------------
TIMINGS = Path("data/timings")


def load_timing(repo: Path, name: str) -> dict | None:
    """A measurement written by ``boexplore.bench.wall`` (None if it was never taken)."""
    path = repo / TIMINGS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def duration(seconds: float) -> str:
    """Minutes (``33 min``, ``4 min 50 s`` below 10 min) — the precision a reader plans with."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 600:
        return f"{s // 60} min {s % 60:02d} s"
    m = int(round(s / 60))
    return f"{m} min" if m < 60 else f"{m // 60} h {m % 60:02d} min"


def cpu_phrase(t: dict, article: bool = True) -> str:
    """``an AMD EPYC (family 25 model 1)``: the CPU a measurement was taken on."""
    from boexplore.cost.cpu_speed import Cpu

    if not t.get("cpu"):
        return "a CPU not recorded" if article else "CPU not recorded"
    cpu = Cpu.from_dict(t["cpu"])
    return cpu.with_article() if article else cpu.label()


def _one_time(t: dict) -> str:
    idle = "idle " if t["load_before"] < 1.0 else ""
    loaded = "" if idle else f" (load {t['load_before']:.1f})"
    return f"{duration(t['wall_s'])} on {t['cores']} {idle}cores{loaded} of {cpu_phrase(t)}"


def time_phrase(repo: Path, name: str) -> str:
    """``33 min on 2 idle cores of an AMD EPYC (family 25 model 1)`` from the measurement
    ``name``, followed by the same command measured idle on other CPUs (``name-*`` records)."""
    t = load_timing(repo, name)
    if t is None:
        return f"(not measured yet: python -m boexplore.bench.wall --name {name} ...)"
    others = [
        o
        for p in sorted((repo / TIMINGS).glob(f"{name}-*.json"))
        if (o := json.loads(p.read_text()))["command"] == t["command"] and o["load_before"] < 1.0
    ]
    times = [_one_time(x) for x in [t, *others]]
    return times[0] if len(times) == 1 else f"{', '.join(times[:-1])} and {times[-1]}"


def plan_now_s(repo: Path, rec: dict) -> float | None:
    """The wall time today's plan line predicts for a recorded fresh workflow run (no CPU
    factor: the wall model as fitted)."""
    from boexplore.bench.wall import predicted_now_s

    return predicted_now_s(rec, repo)


def timings_table(repo: Path) -> str:
    """Every measurement: command, wall, CPU, the plan line then and now, where and when."""
    paths = sorted((repo / TIMINGS).glob("*.json"))
    if not paths:
        return MISSING.format(what="data/timings/")
    lines = [
        "| measurement | command | wall | CPU | plan line at the time | plan line now | machine |",
        "|---|---|---|---|---|---|---|",
    ]
    for path in paths:
        t = json.loads(path.read_text())
        then = (t.get("plan") or {}).get("predicted_wall_s")
        now = plan_now_s(repo, t)
        cpu_time = f"{t['cpu_s'] / 60:.1f} CPU-min" if t.get("cpu_s") else "–"
        date = t["date"][:10] if t.get("date") else "date not recorded at the time"
        load = f"load {t['load_before']:.1f} at start"
        machine = f"{cpu_phrase(t, article=False)}, {t['cores']} cores, {load}, {date}"
        lines.append(
            f"| {path.stem} | `{cell(t['command'])}` | {duration(t['wall_s'])} | {cpu_time} | "
            f"{_vs(then, t['wall_s'])} | {_vs(now, t['wall_s'])} | {machine} |"
        )
    notes = [
        f"- **{p.stem}**: {cell(for_readers(json.loads(p.read_text())['source']))}"
        for p in paths
        if json.loads(p.read_text()).get("source")
    ]
    cpu_notes = sorted({t["cpu_source"] for t in map(_read, paths) if t.get("cpu_source")})
    notes += [f"- **CPU** of {_names(paths, c)}: {cell(for_readers(c))}" for c in cpu_notes]
    return "\n".join(lines + ([""] + notes if notes else []))


def _read(path: Path) -> dict:
    return json.loads(path.read_text())


def _names(paths: list[Path], cpu_source: str) -> str:
    return ", ".join(p.stem for p in paths if _read(p).get("cpu_source") == cpu_source)


def cpu_speed_table(repo: Path) -> str:
    """The plan line's per-CPU speed factors (``cost/cpu_speed.json``) with what the plan line
    now predicts on each CPU and on one it does not know."""
    from boexplore.cost.cpu_speed import load_table

    rows = load_table()
    if not rows:
        return MISSING.format(what="src/boexplore/cost/cpu_speed.json")
    lines = [
        "| CPU | vendor, family, model, AVX-512 | measured wall | model's wall | factor | "
        "plan line on this CPU | source |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        c = r.cpu
        ident = ", ".join(
            "any" if v is None else str(v) for v in (c.vendor, c.family, c.model_number)
        )
        avx = "any" if c.avx512f is None else ("yes" if c.avx512f else "no")
        lines.append(
            f"| {c.label()} | {ident}, {avx} | {duration(r.measured_wall_s)} | "
            f"{duration(r.predicted_wall_s)} | {r.factor:.2f} | "
            f"{_vs(_now(repo, r.timing, r.factor), r.measured_wall_s)} | `{r.timing}` |"
        )
    lo, hi = min(r.factor for r in rows), max(r.factor for r in rows)
    ref = plan_now_s(repo, load_timing(repo, "default") or {}) or rows[0].predicted_wall_s
    lines.append(
        f"| any other CPU | – | – | – | {lo:.2f}–{hi:.2f} | "
        f"{duration(ref * lo)} – {duration(ref * hi)} (not calibrated) | – |"
    )
    return "\n".join(lines)


def _vs(predicted: float | None, measured: float) -> str:
    return f"{duration(predicted)} ({predicted / measured:.2f}×)" if predicted else "–"


# --- cost-model estimates -------------------------------------------------------------------------
def estimate_text(repo: Path, configfile: str) -> str:
    """What ``boexplore estimate --configfile F`` prints (the cost model's per-stage table)."""
    from boexplore.pipeline import cost
    from boexplore.workflow_config import load_config

    config = load_config(repo / configfile)
    cal = cost.config_calibration(config)
    jobs = cost.workflow_job_costs(config, cal)
    timed_out = cost.format_timed_out(cost.timed_out_steps(config, cal))
    return "\n".join(
        [
            "```text",
            f"$ boexplore estimate --configfile {configfile}",
            f"config {configfile} (run {config['run_name']}): {len(jobs)} compute jobs",
            cost.format_summary(cost.summarize(jobs, config), config),
            *([timed_out] if timed_out else []),
            "```",
        ]
    )


def estimate_total(repo: Path, configfile: str) -> str:
    """``10,302 CPU-hours``: the cost model's total for a config."""
    from boexplore.pipeline import cost
    from boexplore.workflow_config import load_config

    config = load_config(repo / configfile)
    total = sum(j.cpu_s for j in cost.workflow_job_costs(config, cost.config_calibration(config)))
    return f"{total / 3600:,.0f} CPU-hours" if total >= 360_000 else f"{total / 3600:.2f} CPU-hours"


def _bo_hours_by_method(repo: Path, configfile: str) -> dict[str, float]:
    """The cost model's CPU-hours of each method's BO jobs in a config."""
    from boexplore.pipeline import cost
    from boexplore.workflow_config import load_config

    config = load_config(repo / configfile)
    hours: dict[str, float] = {}
    for j in cost.workflow_job_costs(config, cost.config_calibration(config)):
        if j.rule == "bo_run":
            method = j.key.split("/")[1]
            hours[method] = hours.get(method, 0.0) + j.cpu_s / 3600.0
    return hours


def estimate_other_methods(repo: Path, configfile: str, leading: str, named: int = 2) -> str:
    """``JES ≈ 430, PES ≈ 310, every other method < 100 CPU-hours``: the BO CPU-hours of the
    next ``named`` methods after ``leading`` and a bound on the rest (rounded up)."""
    hours = _bo_hours_by_method(repo, configfile)
    ranked = sorted((m for m in hours if m != leading), key=hours.get, reverse=True)
    top = ", ".join(f"{m.upper()} ≈ {hours[m]:,.0f}" for m in ranked[:named])
    rest = max((hours[m] for m in ranked[named:]), default=0.0)
    bound = _round_up(rest) if rest > 0 else 1
    return f"{top}, every other method < {bound:,} CPU-hours"


def _round_up(x: float) -> int:
    """``x`` rounded up to one significant digit (2,339 -> 3,000; 97 -> 100)."""
    step = 10 ** math.floor(math.log10(x))
    return int(math.ceil(x / step) * step)


def estimate_guard_without_override(repo: Path, configfile: str, method: str) -> str:
    """What the global ``bo.acq_timeout`` would do to ``method`` without its own limit."""
    import copy

    from boexplore.pipeline import cost
    from boexplore.workflow_config import load_config

    config = copy.deepcopy(load_config(repo / configfile))
    (config["bo"].get("by_method") or {}).get(method, {}).pop("acq_timeout", None)
    rows = [r for r in cost.timed_out_steps(config) if r["method"] == method]
    if not rows:
        return f"the global limit would replace none of {method}'s steps"
    r = rows[0]
    return (f"at the global {r['timeout_s']:,.0f} s the guard would replace "
            f"{r['steps_over'] / r['steps']:.0%} of {method}'s steps with random points (from "
            f"n = {r['first_n']} on {r['first_problem']})")  # fmt: skip


def estimate_method_hours(repo: Path, configfile: str, method: str) -> str:
    """``7,900 CPU-hours``: the cost model's CPU-hours of one method's BO jobs."""
    return f"{_bo_hours_by_method(repo, configfile).get(method, 0.0):,.0f} CPU-hours"


def _total_hours(config: dict) -> str:
    """A config's total CPU-hours under the cost model, as the docs print it."""
    from boexplore.pipeline import cost

    total = sum(j.cpu_s for j in cost.workflow_job_costs(config, cost.config_calibration(config)))
    return f"{total / 3600:,.0f} CPU-hours"


def estimate_kg_cheap(repo: Path, configfile: str) -> str:
    """The config's total with qKG at 32 fantasies and half the optimiser effort."""
    import copy

    from boexplore.workflow_config import load_config

    config = copy.deepcopy(load_config(repo / configfile))
    config["methods"]["kg"] = "kg(fantasies=32)"
    bo = config.setdefault("bo", {})
    by_method = bo.setdefault("by_method", {})
    by_method["kg"] = {**by_method.get("kg", {}), "num_restarts": 5, "raw_samples": 512}
    return _total_hours(config)


def estimate_kg_plain(repo: Path, configfile: str) -> str:
    """The config's total with qKG on BoTorch's own path (``bo.kg_fantasy_cache`` off)."""
    import copy

    from boexplore.workflow_config import load_config

    config = copy.deepcopy(load_config(repo / configfile))
    for bo in (config.get("bo", {}), *(config.get("bo", {}).get("by_method", {}) or {}).values()):
        bo.pop("kg_fantasy_cache", None)
        (bo.get("extra") or {}).pop("kg_fantasy_cache", None)
    return _total_hours(config)


def _now(repo: Path, timing: str, factor: float) -> float | None:
    """Today's plan-line wall for the run recorded in ``timing``, times a CPU factor."""
    path = repo / timing
    base = plan_now_s(repo, json.loads(path.read_text())) if path.exists() else None
    return base * factor if base else None


def plan_line(repo: Path, name: str, configfile: str) -> str:
    """The plan line a fresh run of ``configfile`` prints (jobs counted from the measurement)."""
    from boexplore.cost.cpu_speed import Cpu, plan_speed
    from boexplore.pipeline.progress import format_plan_line, make_plan, predicted_costs
    from boexplore.workflow_config import load_config

    config = load_config(repo / configfile)
    costs = predicted_costs(config)
    rec = load_timing(repo, name) or {}
    n_other = max(int(rec.get("n_jobs") or len(costs)) - len(costs), 0)
    speed = plan_speed(Cpu.from_dict(rec["cpu"])) if rec.get("cpu") else None
    cores = int(rec.get("cores") or 2)
    plan = make_plan(costs, [], cores, config["run_name"], None, 0.0, n_other, None, speed)
    return "```text\n" + format_plan_line(plan) + "\n```"


def _time(name: str) -> Callable[[Path], str]:
    return lambda repo: time_phrase(repo, name)


def _measured(name: str, text: str) -> Callable[[Path], str]:
    """``text (measured 12 min on 2 idle cores)`` when ``name`` was measured, else ``text``
    alone: a sentence whose time is not measured drops the clause, never shows a placeholder."""

    def render(repo: Path) -> str:
        if load_timing(repo, name) is None:
            return text
        return f"{text} (measured {time_phrase(repo, name)})"

    return render


def _kg_memory(repo: Path) -> str:
    from boexplore.bench.kg_memory import memory_phrase

    return memory_phrase(repo / "docs" / "kg-memory.csv", repo / "config" / "paper.yaml")
