"""The committed verdict of the stop rule's claim (paper 1's P1-U2) and where the rule loses.

:class:`~boexplore.diagnostics.stopping.StopRule` is the rule the decide tier (the replicate
tier with 30 seeds on the held-out half of its problems) tests as row P1-U2 ("saves >= 25 % of
evaluations at a loss within seed noise"), decided on that decide half with two controls
(random stopping at the same times, the incumbent-only rule).
Everything here is read from the committed tables, never typed:

* ``claims_paper1.csv``, row P1-U2: the claim, the verdict and the note (saved evaluations, the
  mean loss in normalised regret at the stop of the rule and of each control);
* ``claims_paper1_parts.csv``: the four parts and their decisions;
* ``claims_paper1_units.csv``: the per-problem tests, i.e. at which d the rule loses.

**Where the tables come from at run time.** In a source checkout the committed tables
``data/replicate-decide/tables/`` are read as they are. An installed package does not contain
``data/``, so the P1-U2 rows of the three files ship next to this module (``stop_verdict/``,
package data); ``python -m boexplore.diagnostics.verdict --sync`` refreshes that copy from the
committed tables and a test checks that the two agree, so both sources give the same verdict.
``boexplore diagnose --claims-tables DIR`` reads another tier's tables.

numpy-free and pandas-free (the ``csv`` module), like the rest of :mod:`boexplore.diagnostics`.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

CLAIM_ID = "P1-U2"
TIER = "replicate-decide"
#: How the text names that tier.
TIER_LABEL = "decide"
FILES = ("claims_paper1.csv", "claims_paper1_parts.csv", "claims_paper1_units.csv")
#: The committed tables of a source checkout (absent from an installed package).
REPO_TABLES = Path(__file__).resolve().parents[3] / "data" / TIER / "tables"
#: The package's copy of the P1-U2 rows (``--sync`` writes it).
SHIPPED = "stop_verdict"
#: ``analysis.low_d_max`` / ``analysis.high_d_min`` of config/replicate-decide.yaml (a test checks):
#: the low-d and high-d sides the units are grouped into.
LOW_D_MAX, HIGH_D_MIN = 10, 50
#: Unit codes of ``claims_paper1_units.csv`` -> part names of ``claims_paper1_parts.csv``
#: (as written by ``boexplore.analysis.uses.claims.use_u2``; a test checks the unit counts).
UNIT_PARTS = {
    "U2b": "loss below noise",
    "U2c": "beats random stop (same times)",
    "U2d": "beats incumbent-only rule",
}
#: How a lost part reads in a sentence.
LOST_AS = {
    "loss below noise": "lost more than seed noise",
    "beats random stop (same times)": "lost to random stopping at the same times",
    "beats incumbent-only rule": "lost to the incumbent-only rule",
}
REPRODUCED = "reproduced"
NOTE_LOSS = re.compile(
    r"mean loss in gap: rule (?P<rule>[-\d.e+]+), random stop (?P<rand>[-\d.e+]+), "
    r"incumbent rule (?P<inc>[-\d.e+]+)"
)
NOTE_SAVED = re.compile(
    r"stop rule saved (?P<saved>\d+) of (?P<total>\d+) evaluations \((?P<frac>[\d.]+)%; "
    r"incumbent-only control saves (?P<inc>[\d.]+)%\)"
)


def _float(text: str | None) -> float:
    try:
        return float(text) if text not in (None, "") else math.nan
    except ValueError:
        return math.nan


def _num(x: float) -> str:
    """Three significant digits (the tables' precision), a minus sign, ``–`` when missing."""
    return "–" if math.isnan(x) else f"{x:.3g}".replace("-", "−")


@dataclass(frozen=True)
class Part:
    """One part of the claim (``claims_paper1_parts.csv``)."""

    name: str
    decision: str
    n_units: int
    k_for: float
    k_against: float
    effect: float
    low: float
    high: float
    note: str


@dataclass(frozen=True)
class Unit:
    """One per-problem test of a part (``claims_paper1_units.csv``)."""

    part: str  # part name (UNIT_PARTS)
    problem: str
    dim: int
    n_seeds: int
    outcome: str  # for / against / none


@dataclass(frozen=True)
class StopVerdict:
    """The committed verdict of P1-U2 with its parts and per-problem units."""

    claim_id: str
    tier: str
    source: str
    claim: str
    verdict: str
    saved: float
    saved_low: float
    saved_high: float
    note: str
    parts: tuple[Part, ...]
    units: tuple[Unit, ...]

    @property
    def reproduced(self) -> bool:
        return self.verdict == REPRODUCED

    def part(self, name: str) -> Part | None:
        return next((p for p in self.parts if p.name == name), None)

    def mean_losses(self) -> dict[str, float]:
        """Mean loss in normalised regret at the stop: ``rule``, ``random``, ``incumbent``."""
        m = NOTE_LOSS.search(self.note)
        if m is None:
            return {}
        return {"rule": float(m["rule"]), "random": float(m["rand"]), "incumbent": float(m["inc"])}

    def incumbent_saved(self) -> float:
        """Fraction of evaluations the incumbent-only control saves (NaN when the note does not give it)."""
        m = NOTE_SAVED.search(self.note)
        return float(m["inc"]) / 100 if m else math.nan

    def scale(self) -> str:
        """``6 problems × 8 seeds``: what the decide half held."""
        problems = {u.problem for u in self.units}
        seeds = {u.n_seeds for u in self.units}
        if not problems:
            return ""
        s = "/".join(str(n) for n in sorted(seeds))
        return f"{len(problems)} problems × {s} seeds"

    def against_by_side(self, part: str) -> list[tuple[str, int, int, list[int]]]:
        """Per side of d (low d, between, high d; sides without units left out):
        (``d = 3–6``, units against, units, the d of the units against)."""
        units = [u for u in self.units if u.part == part]
        sides = [
            [u for u in units if u.dim <= LOW_D_MAX],
            [u for u in units if LOW_D_MAX < u.dim < HIGH_D_MIN],
            [u for u in units if u.dim >= HIGH_D_MIN],
        ]
        out = []
        for side in sides:
            if not side:
                continue
            dims = sorted({u.dim for u in side})
            span = f"{dims[0]}" if len(dims) == 1 else f"{dims[0]}–{dims[-1]}"
            lost = sorted(u.dim for u in side if u.outcome == "against")
            out.append((f"d = {span}", len(lost), len(side), lost))
        return out

    def where_it_loses(self) -> str:
        """``lost to the incumbent-only rule on 3 of 6 problems (d = 3–6: 0 of 3; d = 50–100:
        3 of 3)``, one clause per part with units significant against; '' when none has."""
        clauses = []
        for p in self.parts:
            sides = self.against_by_side(p.name)
            lost = sum(s[1] for s in sides)
            if not lost:
                continue
            n = sum(s[2] for s in sides)
            by_side = "; ".join(f"{label}: {k} of {m}" for label, k, m, _ in sides)
            what = LOST_AS.get(p.name, f"'{p.name}' against")
            clauses.append(f"{what} on {lost} of {n} problems ({by_side})")
        return " and ".join(clauses)

    def claimed(self) -> str:
        """The claim's sentence without its label (``the OTSD-trend rule saves ...``)."""
        text = self.claim.split(": ", 1)[-1].strip().rstrip(".")
        return text[:1].lower() + text[1:]

    def advice_line(self) -> str:
        """The one line ``boexplore diagnose`` prints when it offers a stop."""
        scale = f", {self.scale()} held out" if self.units else ""
        head = f"stop rule verdict: {self.verdict} ({self.claim_id}, {self.tier} tier{scale})"
        if self.reproduced:
            held = "held"
        elif self.verdict == "not reproduced":
            held = "was not reproduced"
        else:
            held = "is not established"
        text = f"{head} — the claimed saving (“{self.claimed()}”) {held}: "
        text += f"the rule saved {self.saved:.1%} of evaluations"
        losses = self.mean_losses()
        if losses:
            text += (
                f" with a mean loss in normalised regret at the stop of {_num(losses['rule'])}, "
                f"against {_num(losses['incumbent'])} for the incumbent-only control"
            )
            inc_saved = self.incumbent_saved()
            if not math.isnan(inc_saved):
                text += f" (which saves {inc_saved:.1%})"
        where = self.where_it_loses()
        if where:
            text += f"; it {where}"
        return text + "."

    def parts_table(self) -> str:
        """Markdown: one row per part with its decision, problems for/against and effect,
        and the d of the problems it lost on."""
        lines = [
            "| part | decision | problems for / against | effect [95 % CI] | lost at |",
            "|---|---|---|---|---|",
        ]
        for p in self.parts:
            decision = (
                f"**{p.decision}**" if p.decision in (REPRODUCED, "not reproduced") else p.decision
            )
            name = p.name + (f" ({p.note})" if p.note else "")
            if math.isnan(p.k_for):
                counts = "–"
            else:
                counts = f"{int(p.k_for)}/{p.n_units} for, {int(p.k_against)} against"
            effect = f"{_num(p.effect)} [{_num(p.low)}, {_num(p.high)}]"
            lost = []
            for label, k, m, dims in self.against_by_side(p.name):
                at = f" (d = {', '.join(map(str, dims))})" if dims else ""
                lost.append(f"{label}: {k} of {m}{at}")
            where = "; ".join(lost) or "–"
            lines.append(f"| {name} | {decision} | {counts} | {effect} | {where} |")
        return "\n".join(lines)


def _rows(path: Path, claim_id: str) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh) if r.get("claim_id") == claim_id]


def _shipped_dir():
    return resources.files("boexplore.diagnostics").joinpath(SHIPPED)


def default_tables() -> tuple[Path | None, str]:
    """(directory, label): the checkout's committed tables, else the package's copy."""
    if all((REPO_TABLES / f).is_file() for f in FILES):
        return REPO_TABLES, f"data/{TIER}/tables"
    return None, f"boexplore/diagnostics/{SHIPPED} (copy of data/{TIER}/tables)"


def load_stop_verdict(
    tables: str | Path | None = None, claim_id: str = CLAIM_ID, tier: str | None = None
) -> StopVerdict:
    """The verdict of ``claim_id`` from the three claims tables in ``tables`` (default:
    :func:`default_tables`). ``tier`` labels the text (default: the directory's parent name)."""
    if tables is None:
        directory, label = default_tables()
        tier = tier or TIER_LABEL
    else:
        directory, label = Path(tables), str(tables)
        tier = tier or Path(tables).resolve().parent.name
    if directory is None:
        with resources.as_file(_shipped_dir()) as shipped:
            return _load(Path(shipped), label, claim_id, tier)
    return _load(directory, label, claim_id, tier)


def _load(directory: Path, label: str, claim_id: str, tier: str) -> StopVerdict:
    missing = [f for f in FILES if not (directory / f).is_file()]
    if missing:
        raise FileNotFoundError(f"{label}: no {', '.join(missing)}")
    claims, parts, units = (_rows(directory / f, claim_id) for f in FILES)
    if len(claims) != 1:
        raise ValueError(f"{label}/{FILES[0]}: {len(claims)} rows for {claim_id}, expected 1")
    row = claims[0]
    return StopVerdict(
        claim_id=claim_id,
        tier=tier,
        source=label,
        claim=row["claim"],
        verdict=row["verdict"],
        saved=_float(row["value"]),
        saved_low=_float(row["ci_low"]),
        saved_high=_float(row["ci_high"]),
        note=row.get("note") or "",
        parts=tuple(
            Part(
                name=p["part"],
                decision=p["decision"],
                n_units=int(_float(p["n_units"])),
                k_for=_float(p["k_for"]),
                k_against=_float(p["k_against"]),
                effect=_float(p["effect_mean"]),
                low=_float(p["effect_low"]),
                high=_float(p["effect_high"]),
                note=p.get("note") or "",
            )
            for p in parts
        ),
        units=tuple(
            Unit(
                part=UNIT_PARTS.get(u["part"], u["part"]),
                problem=u["problem"],
                dim=int(_float(u["dim"])),
                n_seeds=int(_float(u["n_seeds"])),
                outcome=u["outcome"],
            )
            for u in units
        ),
    )


def shipped_rows(source: Path = REPO_TABLES, claim_id: str = CLAIM_ID) -> dict[str, str]:
    """File name -> the CSV text the package ships: header + the ``claim_id`` rows of ``source``."""
    out = {}
    for name in FILES:
        with (source / name).open(newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            header = next(reader)
            col = header.index("claim_id")
            rows = [r for r in reader if r[col] == claim_id]
        lines = [header, *rows]
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(lines)
        out[name] = buf.getvalue()
    return out


def sync(source: Path = REPO_TABLES, dest: Path | None = None) -> list[Path]:
    """Write the P1-U2 rows of the committed tables into the package's copy."""
    dest = dest or Path(__file__).resolve().parent / SHIPPED
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in shipped_rows(source).items():
        (dest / name).write_text(text, encoding="utf-8")
        written.append(dest / name)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="The stop rule's committed verdict (P1-U2).")
    ap.add_argument("--tables", type=Path, help="claims tables directory (default: committed)")
    ap.add_argument(
        "--sync", action="store_true", help=f"refresh the package's copy from data/{TIER}/tables"
    )
    args = ap.parse_args(argv)
    if args.sync:
        for path in sync(args.tables or REPO_TABLES):
            print(f"wrote {path}", file=sys.stderr)
    v = load_stop_verdict(args.tables)
    print(f"{v.claim_id} ({v.source}): {v.verdict}")
    print(v.advice_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
