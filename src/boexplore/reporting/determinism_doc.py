"""The measured sections of docs/determinism.md, rendered from committed CSV tables.

``python -m boexplore.reporting.determinism_doc`` rewrites every region between
``<!-- BEGIN generated:NAME -->`` and ``<!-- END generated:NAME -->`` from the tables below;
``--check`` exits 1 when the page and the tables disagree (the test suite runs it), so no
number on the page is typed by hand.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from boexplore.analysis.claimkit.markdown import markdown_table
from boexplore.reporting.text_format import for_readers

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "determinism.md"
CAUSES = ROOT / "docs" / "determinism-causes.csv"
VERIFY = ROOT / "docs" / "determinism-verify.csv"
COST = ROOT / "docs" / "determinism-cost.csv"
#: The releases' ledgers: ``data/<tier>/checks/ledger.csv`` (``boexplore.pipeline.ledger``).
LEDGERS = ROOT / "data"
#: ``python -m boexplore.bench.fingerprint run`` per CPU; ``bench.numerics causes --variants
#: vendor`` on a CPU of the vendor the release was not made on.
FINGERPRINTS = ROOT / "data" / "numerics" / "fingerprints.csv"
VENDOR_CAUSES = ROOT / "data" / "numerics" / "causes-vendor.csv"

REGION = re.compile(
    r"(<!-- BEGIN generated:(?P<name>[a-z0-9_-]+) -->\n)(?P<body>.*?)(<!-- END generated:(?P=name) -->)",
    re.S,
)


def render_causes(table: pd.DataFrame) -> str:
    """One row per change: where each re-run seed first leaves the committed trace."""
    rows = []
    for change, part in table.groupby("change", sort=False):
        cells = {}
        for (problem, method), runs in part.groupby(["problem", "method"], sort=False):
            first = runs["first_divergent_iteration"]
            same = int(first.isna().sum())
            cell = f"{same}/{len(runs)} identical"
            if same < len(runs):
                where = ", ".join("-" if pd.isna(v) else str(int(v)) for v in first)
                cell += (
                    f"; leaves it at BO iteration {where}; max |Δx| {runs['max_abs_dx'].max():.2g}"
                )
            cells[f"{problem} / {method} (seeds {', '.join(map(str, runs['seed']))})"] = cell
        rows.append({"change against the release's numerics": change, **cells})
    return markdown_table(pd.DataFrame(rows))


def render_verify(table: pd.DataFrame) -> str:
    """Summary of a ``boexplore verify`` sample, then one row per job."""
    jobs = table.groupby(["problem", "method", "chunk"], sort=True)
    per_job = pd.DataFrame(
        [
            {
                "job": f"{p}/{m}/{c}",
                "seeds": len(part),
                "identical": int(part["first_divergent_eval"].isna().sum()),
                "first divergence": (
                    "none"
                    if part["first_divergent_iteration"].isna().all()
                    else f"iteration {int(part['first_divergent_iteration'].min())}"
                ),
                "CPU s": round(float(part["cpu_seconds"].sum()), 1),
            }
            for (p, m, c), part in jobs
        ]
    )
    profile = ", ".join(sorted(table["profile"].astype(str).unique()))
    same = int(table["first_divergent_eval"].isna().sum())
    head = (
        f"{len(per_job)} jobs ({len(table)} traces) re-run under `{profile}`: "
        f"{same} of {len(table)} traces identical to the committed ones at float32, "
        f"{round(float(table['cpu_seconds'].sum()) / 60, 1)} CPU-minutes.\n\n"
    )
    return head + markdown_table(per_job)


def render_cost(table: pd.DataFrame) -> str:
    """CPU seconds per BO iteration and final best per cell and profile."""
    from boexplore.bench.numerics import summarise

    out = summarise(table)
    out["cell"] = out["problem"] + "-" + out["dim"].astype(str) + " / " + out["method"]
    seeds = table.groupby(["problem", "dim", "method"])["seed"].nunique().min()
    best = f"final best (mean of {seeds} seeds)"
    out = out.rename(
        columns={
            "cpu_s_per_iter": "CPU s / iteration",
            "final_best": best,
            "ratio_to_unpinned": "vs unpinned",
        }
    )
    cols = ["cell", "profile", "CPU s / iteration", "vs unpinned", best]
    return markdown_table(out, cols)


#: What a ledger cell says when the run did not record the value (a reported observation, or
#: an early verify run that did not yet record the CPU's flags).
UNRECORDED = "not recorded by the run"


def read_ledgers(data: Path) -> pd.DataFrame:
    """Every release's ledger under ``data`` (``<tier>/checks/ledger.csv``), one table."""
    from boexplore.pipeline import ledger

    parts = [ledger.read(p) for p in sorted(Path(data).glob("*/checks/ledger.csv"))]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=ledger.COLUMNS)


def _cpu_of(row: pd.Series) -> dict:
    def num(value: object) -> int | None:
        return None if pd.isna(value) or value == "" else int(value)

    return {
        "vendor": row["cpu_vendor"],
        "family": num(row["cpu_family"]),
        "model_number": num(row["cpu_model_number"]),
        "model": row["cpu_model"],
    }


def render_ledger(table: pd.DataFrame) -> str:
    """One row per verify run (or reported observation), then what it shows per CPU group."""
    from boexplore.pipeline import ledger

    def flag(value: object) -> str:
        return UNRECORDED if pd.isna(value) or value == "" else str(value)

    def dx(value: object) -> str:
        return UNRECORDED if pd.isna(value) else f"{float(value):.2g}"

    rows = []
    for _, r in table.iterrows():
        commit = "" if pd.isna(r["git_commit"]) else str(r["git_commit"])[:7]
        rows.append(
            {
                "release": r["tier"],
                "profile": f"`{r['profile']}`",
                "CPU": (
                    ledger.cpu_group(_cpu_of(r))
                    if pd.isna(r["cpu_family"])
                    else f"{r['cpu_model']} ({ledger.cpu_group(_cpu_of(r))})"
                ),
                "AVX2 / AVX-512F": f"{flag(r['avx2'])} / {flag(r['avx512f'])}",
                "date": UNRECORDED if pd.isna(r["date"]) else r["date"],
                "commit": commit or UNRECORDED,
                "jobs identical": f"{int(r['jobs_identical'])} / {int(r['jobs'])}",
                "model jobs identical": (
                    f"{int(r['model_jobs_identical'])} / {int(r['model_jobs'])}"
                ),
                "max \\|Δx\\|": dx(r["max_abs_dx"]),
                "source": for_readers(
                    str(r["source"]).replace(" in issue", " by the engineer who ran it in issue")
                ),
            }
        )
    summary = []
    seen: set[tuple[str, str, str]] = set()
    for _, r in table.iterrows():
        cpu = _cpu_of(r)
        key = (str(r["tier"]), str(r["profile"]), ledger.cpu_group(cpu))
        if key in seen:
            continue
        seen.add(key)
        part = table[table["tier"] == r["tier"]]
        cov = ledger.coverage(part, str(r["profile"]), cpu)
        shows = {
            "reproduces": "re-makes the release bit for bit",
            "diverges": "does not re-make it bit for bit: compare verdicts (`verify --claims`)",
        }.get(cov.status, cov.status)
        summary.append(
            {
                "release": key[0],
                "profile": f"`{key[1]}`",
                "CPU group": key[2],
                "model jobs identical": f"{cov.model_jobs_identical} / {cov.model_jobs}",
                "the ledger shows": shows,
            }
        )
    share = f"{ledger.REPRODUCES_SHARE:.0%}"
    return (
        markdown_table(pd.DataFrame(rows))
        + f"\nWhat the rows show per CPU group (a group re-makes a release when at least {share} "
        "of the model jobs its rows re-ran are identical; `boexplore verify` trusts this "
        "and nothing else):\n\n" + markdown_table(pd.DataFrame(summary))
    )


def render_vendor_causes(table: pd.DataFrame) -> str:
    """The cause table of a CPU of the other vendor, with the CPU it ran on named first."""
    cpus = ", ".join(sorted(table["cpu"].dropna().unique()))
    body = render_causes(table.drop(columns="cpu"))
    return f"Re-run on {cpus}:\n\n" + body.replace(
        "change against the release's numerics", "change on this CPU"
    )


def render_fingerprint(table: pd.DataFrame) -> str:
    """Digests per primitive and (CPU group, profile); per pair of CPU groups the first
    primitive that differs; and, per variable tried on one CPU, the primitives it moved."""
    from boexplore.bench.fingerprint import compare, cpu_group

    table = table.astype({"order": int}).fillna("")
    base = table[table["env"] == ""].copy()
    base["column"] = base.apply(cpu_group, axis=1) + ", " + base["profile"]
    base = base.sort_values("date").drop_duplicates(["column", "primitive"], keep="last")
    wide = base.pivot(index=["order", "primitive", "library"], columns="column", values="digest")
    wide = wide.sort_index().reset_index().drop(columns="order")
    lines = [line for profile in sorted(base["profile"].unique()) for line in
             compare(table, profile)[1]]  # fmt: skip
    if not lines:
        lines = ["one CPU group in the table so far: no pair to compare"]
    moved = []
    for (cpu, profile, env), part in table[table["env"] != ""].groupby(
        [table.apply(cpu_group, axis=1), "profile", "env"], sort=False
    ):
        ref = base[(base["column"] == f"{cpu}, {profile}")].set_index("primitive")["digest"]
        changed = [
            p for p, d in zip(part["primitive"], part["digest"], strict=True) if ref.get(p) != d
        ]
        moved.append({"CPU": cpu, "profile": f"`{profile}`", "variable": f"`{env}`",
                      "primitives it moved": ", ".join(changed) or "none"})  # fmt: skip
    out = markdown_table(wide) + "\n" + "\n".join(f"- {line}" for line in lines) + "\n"
    if moved:
        out += "\nOne variable on top of a profile, against the same profile alone:\n\n"
        out += markdown_table(pd.DataFrame(moved))
    return out


RENDERERS: dict[str, tuple[Path, Callable[[pd.DataFrame], str]]] = {
    "fingerprint": (FINGERPRINTS, render_fingerprint),
    "causes-vendor": (VENDOR_CAUSES, render_vendor_causes),
    "causes": (CAUSES, render_causes),
    "verify": (VERIFY, render_verify),
    "cost": (COST, render_cost),
    "ledger": (LEDGERS, render_ledger),
}


def render_page(text: str) -> str:
    """``text`` with every generated region rewritten from its table (missing table: kept)."""

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in RENDERERS:
            raise KeyError(f"docs/determinism.md: no renderer for region {name!r}")
        path, render = RENDERERS[name]
        if not path.exists():
            return match.group(0)
        if path.is_dir():
            table = read_ledgers(path)
        else:
            table = pd.read_csv(path, dtype=str if name == "fingerprint" else None)
        return match.group(1) + render(table) + match.group(4)

    return REGION.sub(replace, text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args(argv)
    text = PAGE.read_text()
    new = render_page(text)
    if args.check:
        if new != text:
            print(f"{PAGE} is stale: run python -m boexplore.reporting.determinism_doc")
            return 1
        return 0
    PAGE.write_text(new)
    print(f"rendered {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
