"""What the last ``boexplore verify --claims`` of a tier showed, from its committed files.

``data/<tier>/checks/`` holds, per verify run, the per-trace table (``verify-claims-<date>.csv``),
the claim-by-claim comparison (``...-verdicts.csv``) and the part-by-part one (``...-parts.csv``);
this module turns each complete run into the paragraph and table the results page shows, oldest
first, so runs on different CPUs stand side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

NO_RUN = "No `boexplore verify --claims` of this tier is committed yet."


def _cpu(numerics: str) -> str:
    """The CPU named in a trace's numerics record (JSON), '' when absent."""
    import json

    try:
        return str(json.loads(numerics).get("cpu") or "")
    except (ValueError, AttributeError):
        return ""


def complete_runs(checks: Path) -> list[str]:
    """Date stems (``verify-claims-2026-12-06``) of every complete verify --claims run, oldest
    first."""
    return sorted(
        p.name[: -len("-verdicts.csv")]
        for p in checks.glob("verify-claims-*-verdicts.csv")
        if (checks / p.name.replace("-verdicts.csv", ".csv")).is_file()
    )


def verify_claims_text(repo: Path, tier: str) -> str:
    """Sentence and table of every verify --claims of ``tier``: how many jobs and traces were
    re-made where, how many traces diverged, and which verdicts and parts moved."""
    checks = repo / "data" / tier / "checks"
    stems = complete_runs(checks)
    if not stems:
        return NO_RUN
    return "\n\n".join(_run_text(checks, stem) for stem in stems)


def _run_text(checks: Path, stem: str) -> str:
    """The paragraph (and table of moved verdicts) of one verify --claims run."""
    traces = pd.read_csv(checks / f"{stem}.csv")
    verdicts = pd.read_csv(checks / f"{stem}-verdicts.csv", dtype={"variant": str})
    parts_csv = checks / f"{stem}-parts.csv"
    parts = pd.read_csv(parts_csv) if parts_csv.is_file() else None
    jobs = traces[["problem", "method", "chunk"]].drop_duplicates()
    diverged = int(traces["first_divergent_iteration"].notna().sum())
    profile = ", ".join(sorted(set(traces["profile"].astype(str))))
    cpus = sorted({_cpu(n) for n in traces.get("numerics", pd.Series(dtype=str)).dropna()} - {""})
    where = f" on {', '.join(cpus)}" if cpus else ""
    agree = int(verdicts["verdict_agrees"].sum())
    text = (
        f"`boexplore verify --claims` ({stem.removeprefix('verify-claims-')}, profile {profile}"
        f"{where}) "
        f"re-made {len(jobs)} jobs of the release ({len(traces)} traces; {diverged} diverged from "
        f"the committed trace) and rebuilt the claims with them swapped in: {agree} of "
        f"{len(verdicts)} verdicts are the same"
    )
    if parts is not None:
        same = int((parts["decision_committed"] == parts["decision_rebuilt"]).sum())
        text += f", and {same} of {len(parts)} claim parts"
    text += "."
    moved = verdicts[~verdicts["verdict_agrees"].astype(bool)]
    if moved.empty:
        return text
    same_class = all(
        str(a).split(":")[0] == str(b).split(":")[0]
        for a, b in zip(moved["verdict_committed"], moved["verdict_rebuilt"], strict=True)
    )
    if same_class:
        text += " The rows below keep their verdict; only the scale they name differs."
    lines = [text, "", "| claim | committed | rebuilt |", "|---|---|---|"]
    for _, row in moved.iterrows():
        variant = row["variant"] if isinstance(row["variant"], str) and row["variant"] else ""
        claim = f"{row['claim_id']} (`{variant}`)" if variant else row["claim_id"]
        lines.append(f"| {claim} | {row['verdict_committed']} | {row['verdict_rebuilt']} |")
    return "\n".join(lines)


def _cpu_name(cpu: dict) -> str:
    """``Intel Xeon (family 6 model 167)`` from a ``numerics.cpu_info`` record."""
    return (
        f"{cpu.get('model', '?')} ({cpu.get('vendor', '?')} family {cpu.get('family')} model "
        + (f"{cpu.get('model_number')})")
    )


def rerun_text(repo: Path, tier: str, table: bool = True) -> str:
    """One sentence per whole-workflow re-run on another machine
    (``python -m boexplore.pipeline.tables_compare``): how many paper-1 verdicts, parts and
    paper-2 verdicts are the same, and (``table``) a table of the verdicts that moved."""
    import json

    checks = repo / "data" / tier / "checks"
    stems = sorted(p.name[: -len("-paper1.csv")] for p in checks.glob("rerun-*-paper1.csv"))
    if not stems:
        return "No re-run of this workflow on another machine is committed yet."
    blocks = []
    for stem in stems:
        cpu_file = checks / f"{stem}-cpu.json"
        cpu = json.loads(cpu_file.read_text()) if cpu_file.is_file() else {}
        p1 = pd.read_csv(checks / f"{stem}-paper1.csv", dtype={"variant": str})
        parts = pd.read_csv(checks / f"{stem}-parts.csv")
        text = (
            f"Re-run on {_cpu_name(cpu)} ({stem.removeprefix('rerun-')}): "
            f"{int(p1['verdict_agrees'].sum())} of {len(p1)} paper-1 verdicts and "
            f"{int((parts['decision_committed'] == parts['decision_rebuilt']).sum())} of "
            f"{len(parts)} claim parts are the same"
        )
        moved = [("paper 1", p1)]
        p2_file = checks / f"{stem}-paper2.csv"
        if p2_file.is_file():
            p2 = pd.read_csv(p2_file)
            text += f", and {int(p2['verdict_agrees'].sum())} of {len(p2)} paper-2 verdicts"
            moved.append(("paper 2", p2))
        lines = [text + "."]
        rows = []
        for _, frame in moved:
            for _, row in frame[~frame["verdict_agrees"].astype(bool)].iterrows():
                variant = row.get("variant")
                label = row["claim_id"] + (
                    f" (`{variant}`)" if isinstance(variant, str) and variant else ""
                )
                if "statistic" in row and isinstance(row["statistic"], str):
                    label += f": {row['statistic']}"
                rows.append(f"| {label} | {row['verdict_committed']} | {row['verdict_rebuilt']} |")
        if rows and table:
            lines += ["", "| claim | committed | re-run |", "|---|---|---|", *rows]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def verify_claims_short(repo: Path, tiers: Sequence[str]) -> str:
    """One clause per tier and CPU of the verify --claims runs: claim parts the same of all,
    e.g. ``replicate tier, 20 jobs on Intel(R) Xeon(R): 37 of 37 claim parts the same``."""
    clauses = []
    for tier in tiers:
        checks = repo / "data" / tier / "checks"
        for stem in complete_runs(checks):
            traces = pd.read_csv(checks / f"{stem}.csv")
            parts_csv = checks / f"{stem}-parts.csv"
            if not parts_csv.is_file():
                continue
            parts = pd.read_csv(parts_csv)
            same = int((parts["decision_committed"] == parts["decision_rebuilt"]).sum())
            cpus = sorted(
                {_cpu(n) for n in traces.get("numerics", pd.Series(dtype=str)).dropna()} - {""}
            )
            jobs = len(traces[["problem", "method", "chunk"]].drop_duplicates())
            clauses.append(
                f"{tier} tier, {jobs} jobs on {', '.join(cpus) or 'an unrecorded CPU'}: "
                f"{same} of {len(parts)} claim parts the same"
            )
    return "; ".join(clauses) or NO_RUN
