"""Results and timings in README.md and docs/*.md, rendered from committed tables, never typed.

Text between ``<!-- BEGIN generated:NAME -->`` and ``<!-- END generated:NAME -->`` belongs to
this module: :data:`RENDERERS` maps ``NAME`` to a function of the repository root that
returns the text (a Markdown table, or an inline phrase such as a measured time); a region
named ``figure.<tier>.<name>`` is a committed figure with its caption
(:mod:`boexplore.reporting.figure_text`), and ``verdict-matrix`` the claims × tiers matrix
(:mod:`boexplore.reporting.verdict_matrix`; ``verdict-matrix-paper1`` / ``-paper2`` one paper's). Sources:

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
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pandas as pd

from boexplore.reporting.activity_text import activity_markdown, activity_summary
from boexplore.reporting.claim_scope import ClaimScope
from boexplore.reporting.estimates_text import (
    _kg_memory,
    _measured,
    _time,
    cpu_speed_table,
    estimate_guard_without_override,
    estimate_kg_cheap,
    estimate_kg_plain,
    estimate_method_hours,
    estimate_other_methods,
    estimate_text,
    estimate_total,
    plan_line,
    timings_table,
)
from boexplore.reporting.figure_text import PREFIX as FIGURE_PREFIX
from boexplore.reporting.figure_text import render_figure
from boexplore.reporting.text_format import MISSING, cell, has_value, interval, num, verdict_text
from boexplore.reporting.tier_text import (
    contrasts_summary,
    contrasts_table,
    stop_verdict_text,
    tier_comparison,
    tier_moves_short,
    tier_scope,
    uses_table,
)
from boexplore.reporting.verdict_matrix import PAPER1, PAPER2, verdict_matrix
from boexplore.reporting.verify_text import rerun_text, verify_claims_short, verify_claims_text
from boexplore.reporting.wide_tables import coverage_summary

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
    "paper2_stuck_control.csv",
    "paper2_e2_coverage.md",
    "runs_summary.csv",
    "bounds_summary.csv",
)


# --- paper 1 -------------------------------------------------------------------------------------
PART = re.compile(
    r"(?P<part>[^;]+?): (?P<k>\d+)/(?P<n>\d+) for, (?P<a>\d+) against"
    r"(?:[^;]*?effect (?P<eff>[-\d.e+]+) \[(?P<lo>[-\d.e+]+), (?P<hi>[-\d.e+]+)\])?"
)
SYMBOLS = {"rho": "ρ", "tau": "τ"}
MISSING_DATA = "missing data"


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


def paper1_robustness(row: pd.Series, scope: ClaimScope | None = None) -> str:
    """Where a verdict was decided and what it depends on besides our settings: budget,
    seeds, one problem, rank test. A row without data has nothing to check: it says so
    instead of printing a stability of its missing values."""
    if str(row.get("verdict", "")).startswith(MISSING_DATA):
        reason = str(row["verdict"]).partition(":")[2].strip() or "no data"
        return f"no budget, seed or rank check: the tier has no data for this claim ({reason})"
    out = []
    if scope is not None:
        out += [scope.decided_at(row["claim_id"], row.get("variant"))]
        out += [scope.last_move(row["claim_id"], row.get("variant"))]
    if has_value(row, "holds_from"):
        out.append(f"holds from {100 * float(row['holds_from']):.0f} % of the budget")
    elif has_value(row, "budget_trend"):
        out.append(f"over the budget: {row['budget_trend']}")
    if has_value(row, "stability"):
        out.append(f"seed-bootstrap stability {float(row['stability']):.2f}")
    if has_value(row, "decision_nonparam"):
        out.append(f"rank test: {str(row['decision_nonparam']).replace('_', ' ')}")
    if has_value(row, "lopo"):
        out.append(f"one problem left out: {row['lopo']}")
    return "; ".join(o for o in out if o)


def choice_of_row(row: pd.Series, sens: pd.DataFrame | None) -> str:
    """The setting a row's verdict is decided under ("UCB β = 2"), '' when it has none.

    A variant row (``ts_polish``) is decided under its own setting; other rows under the
    config's default (``default_setting``).
    """
    from boexplore.analysis.paper1.sensitivity import setting_phrase

    if sens is not None and has_value(row, "variant"):
        hit = sens[(sens["claim_id"] == row["claim_id"]) & (sens["value"] == row["variant"])]
        if len(hit):
            return setting_phrase(str(hit["dimension"].iloc[0]), [str(hit["setting"].iloc[0])])
    return str(row["default_setting"]) if has_value(row, "default_setting") else ""


def _verdict_class(verdict: object) -> str:
    """``undecidable`` from ``undecidable at this scale: needs ...``: the verdict without its
    scale, so a re-run that only names another scale does not count as moving."""
    return str(verdict).split(":")[0].strip()


def moved_on_rerun(tier_dir: Path) -> dict[tuple[str, str], list[str]]:
    """Per (claim, variant): the verdicts a committed re-run on another CPU gave where its
    verdict class differs from the committed one (``data/<tier>/checks``: whole-workflow
    re-runs and ``verify --claims`` runs)."""
    checks = tier_dir.parent / "checks"
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(checks.glob("rerun-*-paper1.csv")) + sorted(
        checks.glob("verify-claims-*-verdicts.csv")
    ):
        table = pd.read_csv(path, dtype={"variant": str}).fillna({"variant": ""})
        for _, row in table.iterrows():
            if _verdict_class(row["verdict_committed"]) != _verdict_class(row["verdict_rebuilt"]):
                key = (str(row["claim_id"]), str(row["variant"]))
                found.setdefault(key, []).append(str(row["verdict_rebuilt"]))
    return found


def paper1_table(csv: Path) -> str:
    """The paper-1 claims table of a tier: claim, verdict (and the setting it is decided
    under), evidence, the verdict over our settings, and its other checks. A verdict that
    moved when the tier was re-run on another CPU says so: rounding decided it, not the
    method."""
    df = pd.read_csv(csv)
    moved = moved_on_rerun(csv.parent)
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
        other = moved.get((str(row.claim_id), str(row["variant"]) if has_variant else ""))
        if other:
            verdict += (
                f"; on another CPU: {'; '.join(sorted(set(other)))} (decided by rounding, "
                "not by the method: see the re-run below)"
            )
        line = f"| {row.claim_id}{variant}: {cell(row.claim)} | {cell(verdict)} | "
        line += f"{cell(paper1_evidence(row))} |"
        if robust:
            settings = str(row["settings_range"]) if has_value(row, "settings_range") else ""
            line += f" {cell(settings)} | {cell(paper1_robustness(row, scope))} |"
        lines.append(line)
    return "\n".join(lines)


# --- paper 2 -------------------------------------------------------------------------------------
TRAILING = re.compile(
    r"^(?P<stat>.*?) \((?P<problem>[A-Za-z0-9_.-]+)"
    r"(?:, (?P<arm>[A-Za-z0-9_.-]+)(?:: (?P<rule>[^()]*))?)?\)$"
)


def paper2_table(csv: Path) -> str:
    """The paper-2 claims table: one row per (claim, statistic), the value on every problem and
    the verdicts grouped (``reproduced on all 4``, or which problems gave which)."""
    df = pd.read_csv(csv)
    groups: dict[tuple[str, str], list[tuple[str, str, pd.Series]]] = {}
    for _, row in df.iterrows():
        m = TRAILING.match(str(row.statistic))
        if m is None:
            stat, problem, arm = str(row.statistic), "", ""
        else:
            stat, problem, arm = m["stat"], m["problem"], m["arm"] or ""
            stat += f" ({m['rule']})" if m["rule"] else ""
        groups.setdefault((row.claim_id, stat), []).append((problem, arm, row))
    views = [c for c in ("lopo", "settings_range") if c in df.columns]  # paper 1's columns
    heads = {"lopo": "one problem left out", "settings_range": "over our settings"}
    lines = [
        "| claim | statistic | value | verdict |" + "".join(f" {heads[c]} |" for c in views),
        "|---|---|---|---|" + "---|" * len(views),
    ]
    for (claim, stat), arms in groups.items():
        # a statistic measured on several arms (ablations) per problem names the arm too
        several = len({arm for _, arm, _ in arms}) > 1
        rows = [(f"{p} {a}" if several else p, r) for p, a, r in arms]
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
        line = f"| {claim} | {cell(stat)} | {cell(value)} | {cell(verdict)} |"
        lines.append(line + "".join(f" {cell(paper2_view(rows, c))} |" for c in views))
    return "\n".join(lines)


def paper2_view(rows: list[tuple[str, pd.Series]], column: str) -> str:
    """One view column (``lopo``, ``settings_range``) over a statistic's rows: the text when
    every row reads the same, else each problem's own."""
    texts = {p: str(r[column]) for p, r in rows if has_value(r, column)}
    if len(set(texts.values())) <= 1:
        return next(iter(texts.values()), "")
    return "; ".join(f"{p}: {t}" for p, t in texts.items())


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


def _bands(tier: str) -> Callable[[Path], str]:
    """The tier's claim parts by d band (``claims_paper1_bands.md``) without its page title."""
    inner = _table_file(tier, "claims_paper1_bands.md")

    def render(repo: Path) -> str:
        text = inner(repo)
        return "\n".join(line for line in text.splitlines() if not line.startswith("# ")).strip()

    return render


RENDERERS: dict[str, Callable[[Path], str]] = {
    "verdict-matrix": verdict_matrix,
    "verdict-matrix-readme": lambda repo: verdict_matrix(repo, link_prefix="docs/"),
    "verdict-matrix-paper1": lambda repo: verdict_matrix(repo, papers=[PAPER1]),
    "verdict-matrix-paper2": lambda repo: verdict_matrix(repo, papers=[PAPER2]),
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
    # the beyond-d tier (budgets past d): placed in the pages once its tables are released
    "paper1-replicate-beyond-d": _claims("replicate-beyond-d", 1),
    "scope-replicate-beyond-d": lambda repo: tier_scope(repo, "replicate-beyond-d"),
    "bands-replicate-beyond-d": _bands("replicate-beyond-d"),
    "bands-replicate-decide": _bands("replicate-decide"),
    "budget-replicate-beyond-d": lambda repo: tier_comparison(
        repo, ["replicate", "replicate-long"], "replicate-beyond-d"
    ),
    # the decide tier (more seeds where the power analysis asks): placed once released
    "paper1-replicate-decide": _claims("replicate-decide", 1),
    "scope-replicate-decide": lambda repo: tier_scope(repo, "replicate-decide"),
    "seeds-replicate-decide": lambda repo: tier_comparison(repo, "replicate", "replicate-decide"),
    "moves-replicate-decide": lambda repo: tier_moves_short(repo, "replicate", "replicate-decide"),
    # P1-C7: per problem, the seeds in which the trust region / RAASP acted (issue 58)
    "c7-activity-replicate-decide": lambda repo: activity_markdown(repo, "replicate-decide"),
    "c7-activity-summary-replicate-decide": lambda repo: activity_summary(repo, "replicate-decide"),
    "c7-activity-replicate-beyond-d": lambda repo: activity_markdown(repo, "replicate-beyond-d"),
    "c7-activity-summary-replicate-beyond-d": lambda repo: activity_summary(
        repo, "replicate-beyond-d"
    ),
    "paper2-default": _claims("default", 2),
    "paper2-coverage-default": lambda repo: coverage_summary(repo, "default"),
    "uses-replicate-decide": lambda repo: uses_table(repo, "replicate-decide"),
    "stop-verdict-replicate-decide": lambda repo: stop_verdict_text(
        repo, "replicate-decide", "decide"
    ),
    "verify-claims-replicate": lambda repo: verify_claims_text(repo, "replicate"),
    "verify-claims-replicate-long": lambda repo: verify_claims_text(repo, "replicate-long"),
    "rerun-default": lambda repo: rerun_text(repo, "default"),
    "verify-claims-short": lambda repo: verify_claims_short(repo, ["replicate", "replicate-long"]),
    "rerun-default-short": lambda repo: rerun_text(repo, "default", table=False),
    "timings": timings_table,
    "cpu-speed": cpu_speed_table,
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
    "estimate-paper-kg-plain": lambda repo: estimate_kg_plain(repo, "config/paper.yaml"),
    "estimate-paper-others": lambda repo: estimate_other_methods(repo, "config/paper.yaml", "kg"),
    "estimate-paper-kg-guard": lambda repo: estimate_guard_without_override(
        repo, "config/paper.yaml", "kg"
    ),
}


def render(name: str, repo: Path) -> str:
    """Body of region ``name``: block text sits on its own lines, a phrase stays inline.
    ``figure.<tier>.<name>`` is a figure with its caption (:mod:`.figure_text`)."""
    if name.startswith(FIGURE_PREFIX):
        return f"\n{render_figure(name, repo)}\n"
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
