"""The cross-machine ledger of a data release: which CPUs re-make it bit for bit, under which
numerics profile.

Every ``boexplore verify`` run that re-runs BO appends one row to the release's
``data/<tier>/checks/ledger.csv``: the date, the CPU (vendor, family, model number, model name,
whether it has AVX2 / AVX-512F), the profile, the git commit, how many jobs (and how many of
them fit a model) it re-ran, how many came out identical to the committed traces at float32,
the largest |dx|, and where the row comes from. Committed, the rows accumulate the evidence of
which CPUs reproduce which release; ``docs/determinism.md`` renders them
(``python -m boexplore.reporting.determinism_doc``).

:func:`coverage` reads that evidence for the CPU at hand: ``reproduces`` when the ledger's rows
of the same CPU group and profile show (nearly) every re-run model job identical; otherwise
``verify`` says in one line that divergences here are not evidence of damage and points to
``--claims`` (the verdict-level comparison), and ``verify --ci`` fails only where the ledger
promises identity.

``python -m boexplore.pipeline.ledger import TABLE --tier TIER --configfile CONFIG`` adds the
row of an earlier verify table (``--out`` of ``boexplore verify``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

COLUMNS: tuple[str, ...] = (
    "date",
    "tier",
    "profile",
    "cpu_vendor",
    "cpu_family",
    "cpu_model_number",
    "cpu_model",
    "avx2",
    "avx512f",
    "git_commit",
    "jobs",
    "jobs_identical",
    "jobs_diverged",
    "model_jobs",
    "model_jobs_identical",
    "traces",
    "traces_identical",
    "max_abs_dx",
    "source",
    "note",
)
#: Source of a row written by ``boexplore verify`` itself.
SOURCE_VERIFY = "boexplore verify"
#: Share of a CPU group's re-run model jobs that must be identical for the ledger to count the
#: group as reproducing a release's profile. Below 1 because a single near-tie can flip one
#: job on the machine a release was made on (docs/determinism.md: 27 of 28 jobs on AMD EPYC).
REPRODUCES_SHARE = 0.9


def ledger_path(config: Mapping[str, Any]) -> Path:
    """``data/<tier>/checks/ledger.csv``: beside the release's ``traces/``."""
    traces = (config.get("release") or {}).get("traces")
    if not traces:
        raise ValueError("the config has no release.traces, so no ledger")
    return Path(traces).parent / "checks" / "ledger.csv"


def read(path: Path) -> pd.DataFrame:
    """The ledger at ``path`` (an empty one with :data:`COLUMNS` when there is none)."""
    path = Path(path)
    if not path.exists():
        return pd.DataFrame(columns=list(COLUMNS))
    return pd.read_csv(path, dtype={"git_commit": str, "note": str, "source": str})


def append(path: Path, row: Mapping[str, Any]) -> Path:
    """Add ``row`` to the ledger at ``path`` (created with its header when missing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame([{c: row.get(c) for c in COLUMNS}], columns=list(COLUMNS))
    frame.to_csv(path, mode="a", header=not path.exists(), index=False)
    return path


def uses_model(config: Mapping[str, Any], method: str) -> bool:
    """Whether ``method`` fits a model (random search does not, so it reproduces anywhere)."""
    spec = str((config.get("methods") or {}).get(method, method))
    return spec.split("(", 1)[0].strip().lower() != "random"


def _yes_no(value: Any) -> str:
    return "" if value is None else ("yes" if value else "no")


def row_from_table(
    table: pd.DataFrame,
    config: Mapping[str, Any],
    *,
    tier: str,
    profile: str,
    cpu: Mapping[str, Any],
    source: str = SOURCE_VERIFY,
    date: str | None = None,
    git_commit: str | None = None,
    note: str = "",
) -> dict[str, Any]:
    """The ledger row of one verify table (one row per re-run trace, as ``verify`` makes)."""
    same = table["first_divergent_eval"].isna()
    jobs = table.assign(_same=same).groupby(["problem", "method", "chunk"])["_same"].all()
    model = pd.Series(
        [uses_model(config, m) for _, m, _ in jobs.index], index=jobs.index, dtype=bool
    )
    flags = cpu.get("flags") or {}
    return {
        "date": date or dt.datetime.now(dt.UTC).date().isoformat(),
        "tier": tier,
        "profile": profile,
        "cpu_vendor": cpu.get("vendor"),
        "cpu_family": cpu.get("family"),
        "cpu_model_number": cpu.get("model_number"),
        "cpu_model": cpu.get("model"),
        "avx2": _yes_no(flags.get("avx2")),
        "avx512f": _yes_no(flags.get("avx512f")),
        "git_commit": git_commit or "",
        "jobs": int(len(jobs)),
        "jobs_identical": int(jobs.sum()),
        "jobs_diverged": int((~jobs).sum()),
        "model_jobs": int(model.sum()),
        "model_jobs_identical": int((jobs & model).sum()),
        "traces": int(len(table)),
        "traces_identical": int(same.sum()),
        "max_abs_dx": float(table["max_abs_dx"].max()) if len(table) else None,
        "source": source,
        "note": note,
    }


def table_cpu(table: pd.DataFrame) -> dict[str, Any]:
    """The CPU an older verify table recorded (its ``numerics`` column: model name only;
    AVX-512 known when ATen reported its AVX-512 kernels)."""
    ids = [json.loads(s) for s in table.get("numerics", pd.Series(dtype=str)).dropna()]
    names = sorted({i.get("cpu", "") for i in ids} - {""})
    caps = {i.get("aten_capability") for i in ids} - {None}
    name = ", ".join(names) or "unrecorded"
    vendor = "AMD" if "AMD" in name else "Intel" if "Intel" in name else "unknown"
    avx512 = True if "AVX512" in caps else None
    return {
        "vendor": vendor,
        "family": None,
        "model_number": None,
        "model": name,
        "flags": {"avx2": True, "avx512f": avx512},
    }


# --- what the ledger says about this CPU ---------------------------------------------------


@dataclass(frozen=True)
class Coverage:
    """What the ledger shows for one CPU, release and profile."""

    status: str  # "reproduces" | "diverges" | "unmeasured" | "unsupported"
    profile: str
    cpu: str
    model_jobs: int = 0
    model_jobs_identical: int = 0
    missing_flags: tuple[str, ...] = ()

    @property
    def promised(self) -> bool:
        """Whether the ledger promises bit identity here (divergence = damage)."""
        return self.status == "reproduces"


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and pd.isna(value)) or value == ""


def cpu_group(cpu: Mapping[str, Any]) -> str:
    """How the ledger names a CPU group, e.g. ``Intel family 6 model 207``."""
    if cpu.get("family") is None:
        model, vendor = str(cpu.get("model")), str(cpu.get("vendor"))
        name = model if vendor in model else f"{vendor} {model}"
        return f"{name} (family not recorded)"
    num = cpu.get("model_number")
    return f"{cpu.get('vendor')} family {cpu['family']}" + ("" if num is None else f" model {num}")


def matching_rows(ledger: pd.DataFrame, cpu: Mapping[str, Any]) -> pd.DataFrame:
    """Rows of the same CPU group: same vendor and, where a row records them, the same family
    and model number; a row that records neither (older tables) matches by model name."""
    if ledger.empty:
        return ledger

    def match(row: pd.Series) -> bool:
        if str(row["cpu_vendor"]) != str(cpu.get("vendor")):
            return False
        if _blank(row["cpu_family"]):
            return str(row["cpu_model"]) == str(cpu.get("model"))
        if cpu.get("family") is None or int(row["cpu_family"]) != int(cpu["family"]):
            return False
        if _blank(row["cpu_model_number"]):
            return True
        return cpu.get("model_number") is not None and int(row["cpu_model_number"]) == int(
            cpu["model_number"]
        )

    return ledger[ledger.apply(match, axis=1)]


def coverage(
    ledger: pd.DataFrame,
    profile: str,
    cpu: Mapping[str, Any],
    missing_flags: Sequence[str] = (),
) -> Coverage:
    """What ``ledger`` shows for ``cpu`` under ``profile`` (a profile name, no overrides).

    ``unsupported``: the CPU lacks flags the profile needs; ``unmeasured``: no row of this CPU
    group under this profile re-ran a model job; ``reproduces``: at least
    :data:`REPRODUCES_SHARE` of the model jobs its rows re-ran were identical; ``diverges``:
    fewer were.
    """
    group = cpu_group(cpu)
    if missing_flags:
        return Coverage("unsupported", profile, group, missing_flags=tuple(missing_flags))
    rows = matching_rows(ledger, cpu)
    rows = rows[rows["profile"].astype(str) == profile] if len(rows) else rows
    n = (
        int(pd.to_numeric(rows.get("model_jobs"), errors="coerce").fillna(0).sum())
        if len(rows)
        else 0
    )
    if n == 0:
        return Coverage("unmeasured", profile, group)
    same = int(pd.to_numeric(rows["model_jobs_identical"], errors="coerce").fillna(0).sum())
    status = "reproduces" if same >= REPRODUCES_SHARE * n else "diverges"
    return Coverage(status, profile, group, n, same)


def notice(cov: Coverage, ledger: Path, configfile: Path | str) -> str | None:
    """The one line ``verify`` prints before its per-job output where the ledger does not show
    this CPU re-making the release (None where it does)."""
    if cov.promised:
        return None
    claims = f"boexplore verify --configfile {configfile} --claims"
    if cov.status == "unsupported":
        why = f"this CPU ({cov.cpu}) lacks {' '.join(cov.missing_flags)}, which {cov.profile} needs"
    elif cov.status == "diverges":
        why = (
            f"the ledger ({ledger}) shows {cov.cpu} CPUs not re-making this release under "
            f"{cov.profile} bit for bit ({cov.model_jobs_identical} of {cov.model_jobs} model "
            "jobs identical)"
        )
    else:
        why = f"the ledger ({ledger}) has no row of {cov.cpu} CPUs under {cov.profile}"
    return (
        f"note: {why}, so traces may diverge here by rounding, not damage; to check the "
        f"release on this CPU, compare verdicts: {claims}"
    )


def ci_exit(cov: Coverage, table: pd.DataFrame) -> tuple[int, str]:
    """``verify --ci``: exit 1 only where the ledger promises identity and a trace diverged."""
    diverged = int(table["first_divergent_eval"].notna().sum())
    if cov.promised:
        if diverged:
            return 1, (
                f"CI: FAIL: the ledger shows {cov.cpu} re-making this release under "
                f"{cov.profile}, and {diverged} of {len(table)} traces diverged"
            )
        return 0, f"CI: ok: {len(table)} traces identical, as the ledger promises for {cov.cpu}"
    return 0, (
        f"CI: report only ({cov.status} for {cov.cpu} under {cov.profile} in the ledger): "
        f"{len(table) - diverged} of {len(table)} traces identical; add this run's row to the "
        "ledger to record it"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="add an earlier verify table to a ledger")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("import", help="append the row of a committed verify table")
    p.add_argument("table", type=Path)
    p.add_argument("--configfile", type=Path, required=True, help="the release's config")
    p.add_argument("--date", help="date of the run (default: the table's name, else today)")
    p.add_argument("--git-commit", default="", help="commit the table was made at, if known")
    p.add_argument("--note", default="")
    args = parser.parse_args(argv)
    from boexplore.workflow_config import load_config

    config = load_config(args.configfile)
    table = pd.read_csv(args.table)
    profiles = sorted(table["profile"].astype(str).unique())
    row = row_from_table(
        table,
        config,
        tier=str(config["run_name"]),
        profile=", ".join(profiles),
        cpu=table_cpu(table),
        source=f"committed table {args.table}",
        date=args.date,
        git_commit=args.git_commit,
        note=args.note,
    )
    print(f"appended to {append(ledger_path(config), row)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
