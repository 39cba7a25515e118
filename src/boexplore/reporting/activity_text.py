"""Where P1-C7's mechanisms acted, in the results text: from a tier's committed
``claims_paper1_activity.csv`` (per problem and method, the seeds in which the trust region
changed size / RAASP perturbed a proper subspace) and ``runs_summary.csv`` (evaluations).

P1-C7 counts a unit only where its mechanism acted in enough seeds; these texts say where that
filter leaves a part untested, so a reader sees what the verdict rests on.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from boexplore.reporting.text_format import MISSING

ACTIVITY = "claims_paper1_activity.csv"
WORD = {"trust_region": "trust region changed size", "raasp": "RAASP acted"}


def tier_settings(repo: Path, tier: str) -> tuple[int, float]:
    """(``analysis.high_d_min``, ``analysis.c7_min_active_frac``) of ``config/<tier>.yaml``,
    the schema's defaults where the config does not set them."""
    from boexplore.schema import load_schema
    from boexplore.workflow_config import read_yaml

    props = load_schema("analysis")["properties"]
    path = repo / "config" / f"{tier}.yaml"
    analysis = ((read_yaml(path) or {}).get("analysis") or {}) if path.exists() else {}
    high = analysis.get("high_d_min", props["high_d_min"]["default"])
    frac = analysis.get("c7_min_active_frac", props["c7_min_active_frac"]["default"])
    return int(high), float(frac)


def _tables(repo: Path, tier: str) -> tuple[pd.DataFrame, pd.Series] | str:
    tables = repo / "data" / tier / "tables"
    if not (tables / ACTIVITY).exists():
        return MISSING.format(what=f"`data/{tier}/tables/{ACTIVITY}`")
    act = pd.read_csv(tables / ACTIVITY)
    runs = tables / "runs_summary.csv"
    evals = (
        pd.read_csv(runs, usecols=["problem", "n_evals"]).groupby("problem")["n_evals"].max()
        if runs.exists()
        else pd.Series(dtype=int)
    )
    return act, evals


def activity_markdown(repo: Path, tier: str) -> str:
    """One row per problem, one column per mechanism variant: ``acted / seeds``, with the
    units P1-C7's filter leaves out marked."""
    got = _tables(repo, tier)
    if isinstance(got, str):
        return got
    act, evals = got
    order = {m: i for i, m in enumerate(WORD)}  # the trust region first, then RAASP
    columns = sorted(
        dict.fromkeys(zip(act["mechanism"], act["method"], strict=True)),
        key=lambda c: (order.get(c[0], len(order)), c[1]),
    )
    head = ["problem", "d", "evaluations"] + [f"`{m}`: {WORD[k]}" for k, m in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    problems = act.drop_duplicates("problem").sort_values(["dim", "problem"], kind="stable")
    for problem, dim in zip(problems["problem"], problems["dim"], strict=True):
        cells = [f"`{problem}`", str(int(dim)), str(int(evals.get(problem, 0))) or "–"]
        for mechanism, method in columns:
            row = act[
                (act["problem"] == problem)
                & (act["method"] == method)
                & (act["mechanism"] == mechanism)
            ]
            if row.empty:
                cells.append("–")
                continue
            r = row.iloc[0]
            out = "" if bool(r["kept_by_filter"]) else " (left out)"
            cells.append(f"{int(r['n_acted'])}/{int(r['n_seeds'])}{out}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _span(values: pd.Series) -> str:
    lo, hi = int(values.min()), int(values.max())
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def activity_summary(repo: Path, tier: str) -> str:
    """One phrase: on how many problems below and from ``analysis.high_d_min`` the trust region
    changed size in at least ``analysis.c7_min_active_frac`` of the seeds, at which budgets, in
    which share of the seeds elsewhere; and whether RAASP acted everywhere."""
    got = _tables(repo, tier)
    if isinstance(got, str):
        return got
    high_d_min, min_frac = tier_settings(repo, tier)
    act, evals = got
    tr = act[act["mechanism"] == "trust_region"].copy()
    tr["evals"] = tr["problem"].map(evals)
    parts = []
    for side, rows in (
        (f"d < {high_d_min}", tr[tr["dim"] < high_d_min]),
        (f"d ≥ {high_d_min}", tr[tr["dim"] >= high_d_min]),
    ):
        if rows.empty:
            continue
        kept = rows[rows["kept_by_filter"].astype(bool)]
        text = f"on {len(kept)} of {len(rows)} problems with {side} at {_span(rows['evals'])} evaluations"
        if len(kept) and len(kept) < len(rows):
            named = zip(kept["problem"], kept["n_acted"], kept["n_seeds"], strict=True)
            text += " (" + "; ".join(f"`{p}`, {int(a)}/{int(n)} seeds" for p, a, n in named) + ")"
        rest = rows[~rows["kept_by_filter"].astype(bool)]
        if len(rest):
            lo, hi = rest["frac_acted"].min(), rest["frac_acted"].max()
            share = _pct(lo) if lo == hi else f"{_pct(lo)[:-2]}–{_pct(hi)}"
            text += f"; on the other {len(rest)} it did in {share} of the seeds"
        parts.append(text)
    head = f"the trust region changed size in at least {_pct(min_frac)} of the seeds " + (
        ", and ".join(parts) if parts else "on no problem (no trust-region runs)"
    )
    raasp = act[act["mechanism"] == "raasp"]
    if raasp.empty:
        tail = ""
    elif (raasp["n_acted"] == raasp["n_seeds"]).all():
        tail = f"; RAASP acted in every seed of its {len(raasp)} units"
    else:
        kept = int(raasp["kept_by_filter"].astype(bool).sum())
        tail = f"; RAASP acted in at least {_pct(min_frac)} of the seeds on {kept} of {len(raasp)} units"
    return head + tail
