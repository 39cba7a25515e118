"""Results and timings in README.md and docs/*.md, rendered from committed tables, never typed.

Text between ``<!-- BEGIN generated:NAME -->`` and ``<!-- END generated:NAME -->`` belongs to
this module: :data:`RENDERERS` maps ``NAME`` to a function of the repository root that
returns the text (a Markdown table, or an inline phrase such as a measured time). Sources:

* ``data/<tier>/tables/claims_paper{1,2}.csv`` — the committed claims tables of a tier
  (``replicate``: the data release; ``default``: copied from a finished default run with
  ``--sync``);
* ``data/timings/<name>.json`` — measured wall and CPU times (``boexplore.bench.wall``).

Commands::

    python -m boexplore.reporting.results_text            # rewrite every marked region
    python -m boexplore.reporting.results_text --check    # exit 1 if text and tables disagree
    python -m boexplore.reporting.results_text --sync results/default   # copy its tables in

The test suite runs ``--check``, so a number edited by hand, or a table updated without
regenerating the text, fails CI.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pandas as pd

from boexplore.reporting.claim_scope import ClaimScope
from boexplore.reporting.verify_text import verify_claims_text

REPO = Path(__file__).resolve().parents[3]
TEXT_FILES = ("README.md", "docs/*.md")
#: Pages whose generated regions belong to another generator (same marker syntax).
OTHER_GENERATORS = {"docs/determinism.md": "boexplore.reporting.determinism_doc"}
REGION = re.compile(
    r"<!-- BEGIN generated:(?P<name>[\w.-]+) -->(?P<body>.*?)<!-- END generated:(?P=name) -->",
    re.S,
)
#: Tables of a finished run that the text (or a reader following a link) needs: small CSV / MD
#: files only (the default run's are ~60 kB together), never traces or metrics.
SYNC_TABLES = (
    "claims_paper1.csv",
    "claims_paper1.md",
    "claims_paper1_parts.csv",
    "claims_paper1_units.csv",
    "claims_paper2.csv",
    "claims_paper2.md",
    "paper2_e1_summary.csv",
    "paper2_e2_coverage.md",
    "runs_summary.csv",
    "bounds_summary.csv",
)
MISSING = "*(not generated yet: {what} is missing; see `python -m boexplore.reporting.results_text --help`)*"


# --- number formatting -------------------------------------------------------------------------
def num(x: float) -> str:
    """Three significant digits, ``–`` for a missing value (the precision of every table)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "–"
    return "–" if math.isnan(x) else f"{x:.3g}"


def interval(v: float, lo: float, hi: float) -> str:
    """``0.72 [0.589, 0.815]``."""
    return f"{num(v)} [{num(lo)}, {num(hi)}]"


def verdict_text(verdict: str) -> str:
    """Decisive verdicts in bold, the rest as written by the analysis."""
    v = str(verdict)
    return f"**{v}**" if v in ("reproduced", "not reproduced") else v


def cell(text: str) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


# --- paper 1 -------------------------------------------------------------------------------------
PART = re.compile(
    r"(?P<part>[^;]+?): (?P<k>\d+)/(?P<n>\d+) for, (?P<a>\d+) against"
    r"(?:[^;]*?effect (?P<eff>[-\d.e+]+) \[(?P<lo>[-\d.e+]+), (?P<hi>[-\d.e+]+)\])?"
)
SYMBOLS = {"rho": "ρ", "tau": "τ"}


def paper1_evidence(row: pd.Series) -> str:
    """What decided a paper-1 claim, from its row: the interval statistic, then per part
    ``k/n for, a against`` (the units significant each way) with the effect."""
    note = "" if pd.isna(row.get("note")) else str(row["note"])
    stat = str(row["statistic"])
    out = []
    if stat.startswith("Spearman"):
        out.append(
            f"ρ(OTSD, OE) = {interval(row.value, row.ci_low, row.ci_high)} over {row.n} cells"
        )
    elif stat.startswith("Kendall"):
        out.append(f"τ = {interval(row.value, row.ci_low, row.ci_high)}")
        pairs = re.search(r"adjacent pairs: (\d+)/(\d+) reproduced, (\d+) contradicted", note)
        if pairs:
            out.append(f"adjacent pairs of the paper's order: {pairs[1]}/{pairs[2]} reproduced, "
                       f"{pairs[3]} contradicted")  # fmt: skip
        return "; ".join(out)
    for m in PART.finditer(note):
        part = m["part"].strip()
        text = f"{part}: {m['k']}/{m['n']} for, {m['a']} against"
        if m["eff"]:
            text += f" (effect {interval(m['eff'], m['lo'], m['hi'])})"
        out.append(text)
    return "; ".join(out) if out else cell(note)


def _present(row: pd.Series, key: str) -> bool:
    return key in row.index and not pd.isna(row[key]) and str(row[key]) != ""


def paper1_robustness(row: pd.Series, scope: ClaimScope | None = None) -> str:
    """Where a verdict was decided and what it depends on besides our settings: budget,
    seeds, one problem, rank test."""
    out = []
    if scope is not None:
        out += [scope.decided_at(row["claim_id"], row.get("variant"))]
        out += [scope.last_move(row["claim_id"], row.get("variant"))]
    if _present(row, "holds_from"):
        out.append(f"holds from {100 * float(row['holds_from']):.0f} % of the budget")
    elif _present(row, "budget_trend"):
        out.append(f"over the budget: {row['budget_trend']}")
    if _present(row, "stability"):
        out.append(f"seed-bootstrap stability {float(row['stability']):.2f}")
    if _present(row, "decision_nonparam"):
        out.append(f"rank test: {str(row['decision_nonparam']).replace('_', ' ')}")
    if _present(row, "lopo"):
        out.append(f"one problem left out: {row['lopo']}")
    return "; ".join(o for o in out if o)


def choice_of_row(row: pd.Series, sens: pd.DataFrame | None) -> str:
    """The setting a row's verdict is decided under ("UCB β = 2"), '' when it has none.

    A variant row (``ts_polish``) is decided under its own setting; other rows under the
    config's default (``default_setting``).
    """
    from boexplore.analysis.sensitivity import setting_phrase

    if sens is not None and _present(row, "variant"):
        hit = sens[(sens["claim_id"] == row["claim_id"]) & (sens["value"] == row["variant"])]
        if len(hit):
            return setting_phrase(str(hit["dimension"].iloc[0]), [str(hit["setting"].iloc[0])])
    return str(row["default_setting"]) if _present(row, "default_setting") else ""


def paper1_table(csv: Path) -> str:
    """The paper-1 claims table of a tier: claim, verdict (and the setting it is decided
    under), evidence, the verdict over our settings, and its other checks."""
    df = pd.read_csv(csv)
    robust = "stability" in df.columns
    sens_csv = csv.with_name("claims_paper1_sensitivity.csv")
    sens = pd.read_csv(sens_csv, dtype={"setting": str}) if sens_csv.is_file() else None
    scope = ClaimScope.of_tier(csv.parent) if robust else None
    if robust:
        head = "| claim | verdict | evidence | over our settings | budget, seeds, tests |"
        rule = "|---|---|---|---|---|"
    else:
        head, rule = "| claim | verdict | evidence |", "|---|---|---|"
    lines = [head, rule]
    for _, row in df.iterrows():
        has_variant = not pd.isna(row.get("variant")) and str(row["variant"])
        variant = f" (`{row['variant']}`)" if has_variant else ""
        verdict = verdict_text(row.verdict)
        choice = choice_of_row(row, sens) if robust else ""
        if choice:
            verdict += f", under {choice}"
        line = f"| {row.claim_id}{variant}: {cell(row.claim)} | {cell(verdict)} | "
        line += f"{cell(paper1_evidence(row))} |"
        if robust:
            settings = str(row["settings_range"]) if _present(row, "settings_range") else ""
            line += f" {cell(settings)} | {cell(paper1_robustness(row, scope))} |"
        lines.append(line)
    return "\n".join(lines)


# --- paper 2 -------------------------------------------------------------------------------------
TRAILING = re.compile(r"^(?P<stat>.*?) \((?P<problem>[A-Za-z0-9_.-]+)(?:, [^()]*)?\)$")


def paper2_table(csv: Path) -> str:
    """The paper-2 claims table: one row per (claim, statistic), the value on every problem and
    the verdicts grouped (``reproduced on all 4``, or which problems gave which)."""
    df = pd.read_csv(csv)
    groups: dict[tuple[str, str], list[tuple[str, pd.Series]]] = {}
    for _, row in df.iterrows():
        m = TRAILING.match(str(row.statistic))
        stat, problem = (m["stat"], m["problem"]) if m else (str(row.statistic), "")
        groups.setdefault((row.claim_id, stat), []).append((problem, row))
    lines = ["| claim | statistic | value | verdict |", "|---|---|---|---|"]
    for (claim, stat), rows in groups.items():
        if len(rows) == 1 and not rows[0][0]:
            row = rows[0][1]
            value = interval(row.value, row.ci_low, row.ci_high)
        else:
            value = ", ".join(f"{p} {num(r.value)}" for p, r in rows)
        by_verdict: dict[str, list[str]] = {}
        for p, r in rows:
            by_verdict.setdefault(str(r.verdict), []).append(p)
        if len(by_verdict) == 1:
            (v, ps), = by_verdict.items()  # fmt: skip
            verdict = verdict_text(v) + (f" on all {len(ps)}" if len(ps) > 1 else "")
        else:
            verdict = "; ".join(
                f"{verdict_text(v)}: {', '.join(ps)}" for v, ps in by_verdict.items()
            )
        lines.append(f"| {claim} | {cell(stat)} | {cell(value)} | {cell(verdict)} |")
    return "\n".join(lines)


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


def time_phrase(repo: Path, name: str) -> str:
    """``33 min on 2 cores`` from the measurement ``name``."""
    t = load_timing(repo, name)
    if t is None:
        return f"(not measured yet: python -m boexplore.bench.wall --name {name} ...)"
    idle = "idle " if t["load_before"] < 1.0 else ""
    loaded = "" if idle else f" (load {t['load_before']:.1f})"
    return f"{duration(t['wall_s'])} on {t['cores']} {idle}cores{loaded}"


def plan_now_s(repo: Path, rec: dict) -> float | None:
    """The wall time today's plan line predicts for a recorded fresh workflow run."""
    from boexplore.bench.wall import configfile_of
    from boexplore.pipeline.progress import predicted_costs, predicted_wall_s
    from boexplore.workflow_config import load_config

    if not rec.get("n_jobs") or not rec["command"].startswith("snakemake"):
        return None
    costs = list(predicted_costs(load_config(repo / configfile_of(rec["command"]))).values())
    return predicted_wall_s(costs, rec["cores"], rec["n_jobs"] - len(costs))


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
        cpu = f"{t['cpu_s'] / 60:.1f} CPU-min" if t.get("cpu_s") else "–"
        machine = f"{t['cores']} cores, load {t['load_before']:.1f} at start, {t['date'][:10]}"
        lines.append(
            f"| {path.stem} | `{cell(t['command'])}` | {duration(t['wall_s'])} | {cpu} | "
            f"{_vs(then, t['wall_s'])} | {_vs(now, t['wall_s'])} | {machine} |"
        )
    notes = [
        f"- **{p.stem}**: {cell(json.loads(p.read_text())['source'])}"
        for p in paths
        if json.loads(p.read_text()).get("source")
    ]
    return "\n".join(lines + ([""] + notes if notes else []))


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
    bound = 10 ** math.ceil(math.log10(rest)) if rest > 0 else 1
    return f"{top}, every other method < {bound:,} CPU-hours"


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


def estimate_kg_cheap(repo: Path, configfile: str) -> str:
    """The config's total with qKG at 32 fantasies and half the optimiser effort."""
    import copy

    from boexplore.pipeline import cost
    from boexplore.workflow_config import load_config

    config = copy.deepcopy(load_config(repo / configfile))
    config["methods"]["kg"] = "kg(fantasies=32)"
    bo = config.setdefault("bo", {})
    by_method = bo.setdefault("by_method", {})
    by_method["kg"] = {**by_method.get("kg", {}), "num_restarts": 5, "raw_samples": 512}
    total = sum(j.cpu_s for j in cost.workflow_job_costs(config, cost.config_calibration(config)))
    return f"{total / 3600:,.0f} CPU-hours"


def plan_line(repo: Path, name: str, configfile: str) -> str:
    """The plan line a fresh run of ``configfile`` prints (jobs counted from the measurement)."""
    from boexplore.pipeline.progress import format_plan_line, make_plan, predicted_costs
    from boexplore.workflow_config import load_config

    config = load_config(repo / configfile)
    costs = predicted_costs(config)
    rec = load_timing(repo, name) or {}
    n_other = max(int(rec.get("n_jobs") or len(costs)) - len(costs), 0)
    plan = make_plan(costs, [], int(rec.get("cores") or 2), config["run_name"], None, 0.0, n_other)
    return "```text\n" + format_plan_line(plan) + "\n```"


# --- registry -------------------------------------------------------------------------------------
def _claims(tier: str, paper: int) -> Callable[[Path], str]:
    def render(repo: Path) -> str:
        csv = repo / "data" / tier / "tables" / f"claims_paper{paper}.csv"
        if not csv.exists():
            return MISSING.format(what=f"`data/{tier}/tables/claims_paper{paper}.csv`")
        return paper1_table(csv) if paper == 1 else paper2_table(csv)

    return render


def _table_file(tier: str, name: str) -> Callable[[Path], str]:
    """A committed Markdown table, included verbatim (e.g. the E2 coverage per cell)."""

    def render(repo: Path) -> str:
        path = repo / "data" / tier / "tables" / name
        if not path.exists():
            return MISSING.format(what=f"`data/{tier}/tables/{name}`")
        return path.read_text().strip()

    return render


def tier_scope(repo: Path, tier: str) -> str:
    """``12 problems, d = 2–100, 8 seeds, 1,020 BO runs`` from a tier's committed runs summary."""
    path = repo / "data" / tier / "tables" / "runs_summary.csv"
    if not path.exists():
        return MISSING.format(what=f"`data/{tier}/tables/runs_summary.csv`")
    runs = pd.read_csv(path, usecols=["problem", "method", "seed", "dim"])
    return (
        f"{runs['problem'].nunique()} problems, d = {runs['dim'].min()}–{runs['dim'].max()}, "
        f"{runs['seed'].nunique()} seeds, {runs['method'].nunique()} methods, "
        f"{len(runs):,} BO runs"
    )


def contrasts_table(repo: Path, tier: str, name: str = "contrasts.csv") -> str:
    """Seed-paired contrasts along the budget (``boexplore.analysis.contrasts``) as one row per
    contrast and problem, one column per evaluation count: mean [95 % CI] (positive seeds).

    When the problems' budgets differ (fractions of the budget, ``--at 0.25 ... 1.0``), the
    columns are the shares of the budget and each cell names its evaluation count."""
    path = repo / "data" / tier / "tables" / name
    if not path.exists():
        return MISSING.format(what=f"`data/{tier}/tables/{name}`")
    t = pd.read_csv(path)
    by_share = t["budget"].nunique() > 1
    t["column"] = (
        (100 * t["evaluations"] / t["budget"]).round().astype(int)
        if by_share
        else (t["evaluations"])
    )
    columns = sorted(t["column"].unique())
    label = (lambda c: f"{c} % of budget") if by_share else (lambda c: f"n = {c}")
    head = "| contrast | problem (d) | " + " | ".join(label(c) for c in columns) + " |"
    lines = [head, "|" + "---|" * (len(columns) + 2)]
    for (contrast, dim, problem), g in t.groupby(["contrast", "dim", "problem"], sort=True):
        by_col = g.set_index("column")
        cells = []
        for c in columns:
            if c not in by_col.index:
                cells.append("")
                continue
            r = by_col.loc[c]
            text = (
                f"{r['mean_diff']:+.4f} [{r['ci_low']:+.4f}, {r['ci_high']:+.4f}] "
                f"({int(r['n_positive'])}/{int(r['seeds'])})"
            )
            cells.append(f"n = {int(r['evaluations'])}: {text}" if by_share else text)
        lines.append(f"| {contrast} | {problem} ({dim}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def contrasts_summary(
    repo: Path,
    tier: str,
    name: str = "contrasts.csv",
    reference_share: float | None = None,
    reference: str = "the smallest budget",
) -> str:
    """One line per contrast of a contrasts table: at each problem's largest evaluation count,
    on how many problems the 95 % interval lies above / below zero, and on how many the
    difference has moved away from zero (same sign, larger size) since the reference count:
    the smallest, or the one at ``reference_share`` of the budget (a shorter tier's budget)."""
    path = repo / "data" / tier / "tables" / name
    if not path.exists():
        return MISSING.format(what=f"`data/{tier}/tables/{name}`")
    t = pd.read_csv(path)
    lines = []
    for contrast, g in t.groupby("contrast", sort=True):
        above = below = grew = 0
        problems = 0
        for _, p in g.groupby("problem"):
            p = p.sort_values("evaluations").reset_index(drop=True)
            i_ref = 0
            if reference_share is not None:
                i_ref = int((p["evaluations"] / p["budget"] - reference_share).abs().idxmin())
            first, last = p.iloc[i_ref], p.iloc[-1]
            problems += 1
            above += last["ci_low"] > 0
            below += last["ci_high"] < 0
            same_sign = math.copysign(1, first["mean_diff"]) == math.copysign(1, last["mean_diff"])
            grew += (
                i_ref < len(p) - 1
                and same_sign
                and abs(last["mean_diff"]) > abs(first["mean_diff"])
            )
        lines.append(
            f"- {contrast}: at the largest budget above zero on {above} of {problems} problems, "
            f"below zero on {below}; further from zero than at {reference} on {grew}."
        )
    return "\n".join(lines)


def _verdict_cell(row: pd.Series) -> str:
    """``**not reproduced** (0.88)``: a tier's verdict of one claim with its statistic."""
    return f"{verdict_text(row['verdict'])} ({num(row['value'])})"


def tier_comparison(repo: Path, before: str, after: str) -> str:
    """The paper-1 claims of ``after`` (a longer budget) beside ``before``: verdict (statistic)
    in each, and how the ``after`` verdict depends on the budget. Claims ``after`` has no data
    for (its methods do not include them) are left out."""
    frames = {}
    for tier in (before, after):
        path = repo / "data" / tier / "tables" / "claims_paper1.csv"
        if not path.exists():
            return MISSING.format(what=f"`data/{tier}/tables/claims_paper1.csv`")
        t = pd.read_csv(path, dtype={"variant": str}).fillna({"variant": ""})
        frames[tier] = t.set_index(["claim_id", "variant"])
    a, b = frames[before], frames[after]
    scope = ClaimScope.of_tier(repo / "data" / after / "tables")
    lines = [
        f"| claim | {before} | {after} | {after}: where tested, over the budget |",
        "|---|---|---|---|",
    ]
    for key in b.index:
        row = b.loc[key]
        if str(row["verdict"]).startswith("missing data"):
            continue  # the longer tier does not run what this claim needs (e.g. batches)
        claim = f"{key[0]} (`{key[1]}`)" if key[1] else key[0]
        was = _verdict_cell(a.loc[key]) if key in a.index else "not decided"
        trend = ""
        if _present(row, "holds_from"):
            trend = f"holds from {100 * float(row['holds_from']):.0f} % of the budget"
        elif _present(row, "budget_trend"):
            trend = str(row["budget_trend"])
        if scope is not None:
            where = [scope.decided_at(*key), scope.last_move(*key), trend]
            trend = "; ".join(w for w in where if w)
        lines.append(f"| {claim} | {cell(was)} | {cell(_verdict_cell(row))} | {cell(trend)} |")
    return "\n".join(lines)


def uses_table(repo: Path, tier: str) -> str:
    """The paper-1 uses (rows P1-U*) of a tier: verdict and the note that decided it."""
    path = repo / "data" / tier / "tables" / "claims_paper1.csv"
    if not path.exists():
        return MISSING.format(what=f"`data/{tier}/tables/claims_paper1.csv`")
    df = pd.read_csv(path, dtype={"variant": str}).fillna({"variant": "", "note": ""})
    lines = ["| row | verdict | parts and controls (the row's note) |", "|---|---|---|"]
    for _, row in df[df["claim_id"].str.startswith("P1-U")].iterrows():
        claim = str(row["claim"]).split(":", 1)[0]
        variant = f" (`{row['variant']}`)" if row["variant"] else ""
        lines.append(
            f"| {row['claim_id']}{variant} {cell(claim.lower())} | "
            f"{cell(verdict_text(row['verdict']))} | {cell(row['note'])} |"
        )
    return "\n".join(lines)


def stop_verdict_text(repo: Path, tier: str) -> str:
    """P1-U2 (the OTSD stop rule) of a tier: its parts, where it loses by d, and the line
    ``boexplore diagnose`` prints when it offers a stop (the same code builds both)."""
    from boexplore.diagnostics.verdict import FILES, load_stop_verdict

    tables = repo / "data" / tier / "tables"
    missing = [f for f in FILES if not (tables / f).exists()]
    if missing:
        return MISSING.format(what=", ".join(f"`data/{tier}/tables/{f}`" for f in missing))
    v = load_stop_verdict(tables, tier=tier)
    losses = v.mean_losses()
    lines = [
        f"**{v.claim_id}, {tier} tier: {v.verdict}** (decide half, {v.scale()}). "
        f"Claim: “{v.claimed()}”.",
        "",
        v.parts_table(),
        "",
    ]
    if losses:
        lines += [
            f"Mean loss in normalised regret at the stop: rule {num(losses['rule'])}, random "
            f"stop at the same times {num(losses['random'])}, incumbent-only rule "
            f"{num(losses['incumbent'])}.",
            "",
        ]
    lines += ["What `boexplore diagnose` prints under its stop point:", "", f"> {v.advice_line()}"]
    return "\n".join(lines)


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


RENDERERS: dict[str, Callable[[Path], str]] = {
    "paper1-replicate": _claims("replicate", 1),
    "paper1-default": _claims("default", 1),
    "scope-replicate": lambda repo: tier_scope(repo, "replicate"),
    "contrasts-replicate-long": lambda repo: contrasts_table(repo, "replicate-long"),
    "contrasts-low-d-replicate-long": lambda repo: contrasts_table(
        repo, "replicate-long", "contrasts_low_d.csv"
    ),
    "contrasts-summary-replicate-long": lambda repo: contrasts_summary(
        repo, "replicate-long", reference="30 evaluations (the replicate budget)"
    ),
    "contrasts-low-d-summary-replicate-long": lambda repo: contrasts_summary(
        repo, "replicate-long", "contrasts_low_d.csv", 0.5, "50 % (the replicate budget)"
    ),
    "paper1-replicate-long": _claims("replicate-long", 1),
    "scope-replicate-long": lambda repo: tier_scope(repo, "replicate-long"),
    "budget-replicate-long": lambda repo: tier_comparison(repo, "replicate", "replicate-long"),
    "paper2-default": _claims("default", 2),
    "paper2-coverage-default": _table_file("default", "paper2_e2_coverage.md"),
    "uses-replicate": lambda repo: uses_table(repo, "replicate"),
    "stop-verdict-replicate": lambda repo: stop_verdict_text(repo, "replicate"),
    "verify-claims-replicate": lambda repo: verify_claims_text(repo, "replicate"),
    "timings": timings_table,
    "time-default": _time("default"),
    "time-smoke": _time("smoke"),
    "time-replicate": _time("replicate"),
    "rebuild-replicate": _measured("replicate", "without BO"),
    "time-tests": _time("tests"),
    "plan-default": lambda repo: plan_line(repo, "default", "config/config.yaml"),
    "estimate-paper": lambda repo: estimate_text(repo, "config/paper.yaml"),
    "estimate-default": lambda repo: estimate_text(repo, "config/config.yaml"),
    "estimate-paper-total": lambda repo: estimate_total(repo, "config/paper.yaml"),
    "kg-memory": lambda repo: _kg_memory(repo),
    "estimate-paper-kg": lambda repo: estimate_method_hours(repo, "config/paper.yaml", "kg"),
    "estimate-paper-kg-cheap": lambda repo: estimate_kg_cheap(repo, "config/paper.yaml"),
    "estimate-paper-others": lambda repo: estimate_other_methods(repo, "config/paper.yaml", "kg"),
    "estimate-paper-kg-guard": lambda repo: estimate_guard_without_override(
        repo, "config/paper.yaml", "kg"
    ),
}


def _kg_memory(repo: Path) -> str:
    from boexplore.bench.kg_memory import memory_phrase

    return memory_phrase(repo / "docs" / "kg-memory.csv", repo / "config" / "paper.yaml")


def render(name: str, repo: Path) -> str:
    """Body of region ``name``: block text sits on its own lines, a phrase stays inline."""
    if name not in RENDERERS:
        raise KeyError(f"unknown generated region {name!r}; known: {', '.join(RENDERERS)}")
    text = RENDERERS[name](repo).strip()
    block = "\n" in text or text.startswith(("|", "- "))
    return f"\n{text}\n" if block else text


def rewrite(text: str, repo: Path) -> str:
    """``text`` with every generated region re-rendered."""

    def sub(m: re.Match) -> str:
        name = m["name"]
        return f"<!-- BEGIN generated:{name} -->{render(name, repo)}<!-- END generated:{name} -->"

    return REGION.sub(sub, text)


def text_files(repo: Path, patterns: Iterable[str] = TEXT_FILES) -> list[Path]:
    """The Markdown files this module renders (``OTHER_GENERATORS``' pages excluded)."""
    other = {repo / name for name in OTHER_GENERATORS}
    return sorted({p for pat in patterns for p in repo.glob(pat) if p.is_file() and p not in other})


def check(repo: Path = REPO, patterns: Iterable[str] = TEXT_FILES) -> list[str]:
    """One message per region whose committed text differs from what the tables give."""
    problems = []
    for path in text_files(repo, patterns):
        text = path.read_text()
        for m in REGION.finditer(text):
            want = render(m["name"], repo)
            if m["body"] != want:
                problems.append(
                    f"{path.relative_to(repo)}: region {m['name']!r} differs from its tables"
                )
    return problems


def write(repo: Path = REPO, patterns: Iterable[str] = TEXT_FILES) -> list[Path]:
    """Rewrite every file with generated regions; returns the files that changed."""
    changed = []
    for path in text_files(repo, patterns):
        text = path.read_text()
        new = rewrite(text, repo)
        if new != text:
            path.write_text(new)
            changed.append(path)
    return changed


def sync(results: Path, dest: Path) -> list[Path]:
    """Copy the :data:`SYNC_TABLES` of a finished run (``results/<run>``) into ``dest``."""
    src = Path(results) / "tables"
    missing = [n for n in ("claims_paper1.csv", "claims_paper2.csv") if not (src / n).exists()]
    if missing:
        raise FileNotFoundError(f"{src} has no {', '.join(missing)}: is the run finished?")
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for name in SYNC_TABLES:
        if (src / name).exists():
            out.append(Path(shutil.copyfile(src / name, dest / name)))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Render the generated regions of README.md and docs/*.md from the committed tables."
    )
    ap.add_argument("--check", action="store_true", help="exit 1 if any region is stale")
    ap.add_argument("--sync", type=Path, metavar="RESULTS",
                    help="first copy the tables of a finished run (e.g. results/default)")  # fmt: skip
    ap.add_argument("--to", type=Path, default=None,
                    help="destination of --sync (default data/<run name>/tables)")  # fmt: skip
    ap.add_argument("--repo", type=Path, default=REPO)
    args = ap.parse_args(argv)
    if args.sync:
        dest = args.to or args.repo / "data" / args.sync.name / "tables"
        for path in sync(args.sync, dest):
            print(f"copied {path}")
    if args.check:
        problems = check(args.repo)
        for p in problems:
            print(p)
        if problems:
            print("regenerate: python -m boexplore.reporting.results_text")
        return 1 if problems else 0
    for path in write(args.repo):
        print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
