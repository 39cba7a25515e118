"""Generated text on a tier's results: its scope, budget contrasts, tier comparison, uses, stop rule."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from boexplore.reporting.claim_scope import ClaimScope
from boexplore.reporting.text_format import MISSING, cell, has_value, num, verdict_text


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


def tier_comparison(repo: Path, before: str | Sequence[str], after: str) -> str:
    """The paper-1 claims of ``after`` (a longer budget) beside one or more earlier tiers
    (``before``): verdict (statistic) in each, and how the ``after`` verdict depends on the
    budget. Claims ``after`` has no data for (its methods do not include them) are left out."""
    earlier = [before] if isinstance(before, str) else list(before)
    frames = {}
    for tier in (*earlier, after):
        path = repo / "data" / tier / "tables" / "claims_paper1.csv"
        if not path.exists():
            return MISSING.format(what=f"`data/{tier}/tables/claims_paper1.csv`")
        t = pd.read_csv(path, dtype={"variant": str}).fillna({"variant": ""})
        frames[tier] = t.set_index(["claim_id", "variant"])
    b = frames[after]
    scope = ClaimScope.of_tier(repo / "data" / after / "tables")
    heads = " | ".join(earlier)
    lines = [
        f"| claim | {heads} | {after} | {after}: where tested, over the budget |",
        "|---|" + "---|" * len(earlier) + "---|---|",
    ]
    for key in b.index:
        row = b.loc[key]
        if str(row["verdict"]).startswith("missing data"):
            continue  # the longer tier does not run what this claim needs (e.g. batches)
        claim = f"{key[0]} (`{key[1]}`)" if key[1] else key[0]
        was = [
            _verdict_cell(frames[t].loc[key]) if key in frames[t].index else "not decided"
            for t in earlier
        ]
        trend = ""
        if has_value(row, "holds_from"):
            trend = f"holds from {100 * float(row['holds_from']):.0f} % of the budget"
        elif has_value(row, "budget_trend"):
            trend = str(row["budget_trend"])
        if scope is not None:
            where = [scope.decided_at(*key), scope.last_move(*key), trend]
            trend = "; ".join(w for w in where if w)
        cells = " | ".join(cell(w) for w in was)
        lines.append(f"| {claim} | {cells} | {cell(_verdict_cell(row))} | {cell(trend)} |")
    return "\n".join(lines)


def _short_class(verdict: object) -> str:
    """``undecidable`` / ``reproduced`` / ...: a verdict without its scale or price."""
    v = str(verdict).split(":")[0].split(";")[0].strip()
    return "undecidable" if v.startswith("undecidable") else v


def tier_moves_short(repo: Path, before: str, after: str) -> str:
    """One sentence: the rows whose verdict ``after`` (e.g. more seeds) decides differently from
    ``before``, and the rows ``after`` still leaves undecidable (with their price, if any)."""
    frames = {}
    for tier in (before, after):
        path = repo / "data" / tier / "tables" / "claims_paper1.csv"
        if not path.exists():
            return MISSING.format(what=f"`data/{tier}/tables/claims_paper1.csv`")
        t = pd.read_csv(path, dtype={"variant": str}).fillna({"variant": ""})
        frames[tier] = t.set_index(["claim_id", "variant"])
    a, b = frames[after], frames[before]
    moved, open_rows = [], []
    for key in a.index:
        name = f"{key[0]} (`{key[1]}`)" if key[1] else key[0]
        now = _short_class(a.loc[key, "verdict"])
        was = _short_class(b.loc[key, "verdict"]) if key in b.index else "not decided"
        if now == "undecidable":
            open_rows.append(f"{name} ({str(a.loc[key, 'verdict']).split(':', 1)[1].strip()})")
        elif now != was and not now.startswith("missing data"):
            moved.append(f"{name} {was} → **{now}**")
    text = "; ".join(moved) if moved else "no verdict moves"
    if open_rows:
        text += "; still undecidable: " + "; ".join(open_rows)
    return text


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


def stop_verdict_text(repo: Path, tier: str, label: str | None = None) -> str:
    """P1-U2 (the OTSD stop rule) of a tier (named ``label`` in the text, default ``tier``):
    its parts, where it loses by d, and the line ``boexplore diagnose`` prints when it offers a
    stop (the same code builds both)."""
    from boexplore.diagnostics.verdict import FILES, load_stop_verdict

    tables = repo / "data" / tier / "tables"
    missing = [f for f in FILES if not (tables / f).exists()]
    if missing:
        return MISSING.format(what=", ".join(f"`data/{tier}/tables/{f}`" for f in missing))
    v = load_stop_verdict(tables, tier=label or tier)
    losses = v.mean_losses()
    lines = [
        f"**{v.claim_id}, {v.tier} tier: {v.verdict}** (decide half, {v.scale()}). "
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
