"""The verdict matrix: every claim against every tier, one coloured verdict word per cell.

A reader gets the project's result in one look: a row per claim (its id and one-line
statement), a column per tier (most decided first), each cell the verdict *word* of that tier's
committed claims table (``data/<tier>/tables/claims_paper<N>.csv``). The evidence stays one
click away: each tier's column head links to the tier's results page, and each cell's
``title`` carries the full verdict (the scale an undecidable row needs, why a row has no
verdict).

The matrix is an HTML table (``<div class="verdict-matrix">``), so each cell carries a CSS
class per verdict (``verdict-reproduced`` ...) and its tier (``data-tier``):
``docs/assets/boexplore.css`` colours the words and, on a narrow screen, stacks each claim's
cells under its statement instead of scrolling sideways. On GitHub the same table renders
without the colours.

A paper's rows are one :class:`MatrixRows` declaration in :data:`MATRIX`: which claims table,
which tiers; a claim with several rows in a tier (paper 2's per-problem rows) gets one cell
that says whether they agree.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from boexplore.analysis.claimkit.verdict import (
    MISSING,
    NOT_REPRODUCED,
    REPRODUCED,
    UNDECIDABLE_PREFIX,
    UNDECIDED,
)


@dataclass(frozen=True)
class MatrixTier:
    """One column: a tier's folder under ``data/``, its short label and its results page."""

    folder: str
    label: str
    page: str  # a docs page, relative to docs/


@dataclass(frozen=True)
class MatrixRows:
    """One paper's rows: the claims table of each tier, the columns in reading order."""

    title: str
    table: str  # file name under data/<tier>/tables/
    tiers: tuple[MatrixTier, ...]


#: (verdict word shown, CSS class suffix), by what a committed verdict starts with.
WORDS: tuple[tuple[str, str, str], ...] = (
    (REPRODUCED, "reproduced", "reproduced"),
    (NOT_REPRODUCED, "not reproduced", "not-reproduced"),
    (UNDECIDABLE_PREFIX, "undecidable", "undecidable"),
    (UNDECIDED, "undecidable", "undecidable"),
    ("inconclusive", "inconclusive", "undecidable"),
    (MISSING, "not tested", "not-tested"),
)
ABSENT = ("not in this tier", "absent")
MIXED = ("differs by problem", "mixed")

PAPER1_TIERS = (
    MatrixTier("replicate-decide", "decide", "results-paper1-decide.md"),
    MatrixTier("replicate-beyond-d", "beyond d", "results-paper1-beyond-d.md"),
    MatrixTier("replicate-long", "long", "results-paper1-long.md"),
    MatrixTier("replicate", "replicate", "results-paper1-replicate.md"),
    MatrixTier("default", "default", "results-paper1-default.md"),
)
#: The papers in the matrix, in order. Paper 2's rows are one more declaration here.
MATRIX: tuple[MatrixRows, ...] = (MatrixRows("Paper 1", "claims_paper1.csv", PAPER1_TIERS),)


def verdict_word(verdict: object) -> tuple[str, str]:
    """(word, CSS class suffix) of a committed verdict: ``reproduced``, ``not reproduced``,
    ``undecidable`` (with or without its scale), ``not tested`` (missing data)."""
    text = str(verdict).strip()
    for start, word, css in WORDS:
        if text == start or text.startswith(start + ":") or text.startswith(start + " "):
            return word, css
    raise ValueError(f"unknown verdict {text!r}: not one of {[w[0] for w in WORDS]}")


def _key(row: pd.Series) -> tuple[str, str]:
    variant = row.get("variant")
    return str(row["claim_id"]), "" if pd.isna(variant) else str(variant)


def tier_cells(table: pd.DataFrame) -> dict[tuple[str, str], tuple[str, str, str]]:
    """Per (claim, variant): (word, CSS suffix, full text) of a tier's claims table; several
    rows of one claim (one per problem or statistic) give one word when they agree."""
    groups: dict[tuple[str, str], list[str]] = {}
    for _, row in table.iterrows():
        groups.setdefault(_key(row), []).append(" ".join(str(row["verdict"]).split()))
    out = {}
    for key, verdicts in groups.items():
        words = {verdict_word(v) for v in verdicts}
        if len(words) == 1:
            (word, css), = words  # fmt: skip
            full = verdicts[0] if len(verdicts) == 1 else f"{word} on all {len(verdicts)}"
        else:
            word, css = MIXED
            counts = Counter(verdict_word(v)[0] for v in verdicts)
            full = ", ".join(f"{w} on {n}" for w, n in sorted(counts.items()))
        out[key] = (word, css, full)
    return out


def _statements(tables: Sequence[pd.DataFrame]) -> dict[tuple[str, str], str]:
    """Per row key, the claim's one-line statement (first tier that has the row)."""
    out: dict[tuple[str, str], str] = {}
    for table in tables:
        for _, row in table.iterrows():
            text = "" if pd.isna(row.get("claim")) else " ".join(str(row["claim"]).split())
            out.setdefault(_key(row), text)
    return out


#: Row order inside a paper: the claims (C), then the uses (U), then the checks (X).
KIND_ORDER = "CUX"


def _sort_key(key: tuple[str, str]) -> tuple[str, int, int, str]:
    """``P1-C2`` before ``P1-C10`` before ``P1-U1`` before ``P1-X1``; variants by name."""
    claim, variant = key
    prefix, _, name = claim.rpartition("-")
    kind = KIND_ORDER.find(name[:1]) % (len(KIND_ORDER) + 1)
    number = int(name[1:]) if name[1:].isdigit() else 0
    return prefix, kind, number, variant


def _claim_cell(key: tuple[str, str], statement: str) -> str:
    claim, variant = key
    name = f"<strong>{html.escape(claim)}</strong>"
    if variant:
        name += f" (<code>{html.escape(variant)}</code>)"
    return f"{name} {html.escape(statement)}"


def rows_html(repo: Path, rows: MatrixRows, link_prefix: str = "") -> list[str]:
    """The ``<thead>`` / ``<tbody>`` lines of one paper's block of the matrix."""
    tiers, tables = [], []
    for tier in rows.tiers:
        path = repo / "data" / tier.folder / "tables" / rows.table
        if path.is_file():
            tiers.append(tier)
            tables.append(pd.read_csv(path, dtype={"variant": str}))
    if not tiers:
        return []
    cells = [tier_cells(t) for t in tables]
    statements = _statements(tables)
    head = "".join(
        f'<th><a href="{link_prefix}{t.page}">{html.escape(t.label)}</a></th>' for t in tiers
    )
    lines = [f"<thead><tr><th>{html.escape(rows.title)} claim</th>{head}</tr></thead>", "<tbody>"]
    for key in sorted(statements, key=_sort_key):
        tds = []
        for tier, tier_cell in zip(tiers, cells, strict=True):
            word, css, full = tier_cell.get(key, (*ABSENT, f"no row in the {tier.label} tier"))
            tds.append(
                f'<td data-tier="{html.escape(tier.label)}"><span class="verdict verdict-{css}"'
                f' title="{html.escape(full)}">{word}</span></td>'
            )
        lines.append(f"<tr><td>{_claim_cell(key, statements[key])}</td>{''.join(tds)}</tr>")
    lines.append("</tbody>")
    return lines


def verdict_matrix(repo: Path, link_prefix: str = "", papers: Sequence[MatrixRows] = MATRIX) -> str:
    """The matrix as an HTML block (links relative to ``docs/``, prefixed by ``link_prefix``:
    ``docs/`` for the README)."""
    body = [line for rows in papers for line in rows_html(repo, rows, link_prefix)]
    if not body:
        return "*(no claims table committed yet under `data/<tier>/tables/`)*"
    pages = " · ".join(
        f'<a href="{link_prefix}{t.page}">{html.escape(t.label)}</a>'
        for rows in papers
        for t in rows.tiers
        if (repo / "data" / t.folder / "tables" / rows.table).is_file()
    )
    return "\n".join(
        [
            '<div class="verdict-matrix">',
            '<table class="verdict-matrix__table">',
            *body,
            "</table>",
            f"<p>The evidence of each tier: {pages}. Hover a verdict for its full text.</p>",
            "</div>",
        ]
    )
