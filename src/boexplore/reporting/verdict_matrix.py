"""The verdict matrix: every claim against every tier, one coloured verdict word per cell.

A reader gets the project's result in one look: a row per claim (its id and one-line
statement), a column per tier (most decided first), each cell the verdict *word* of that tier's
committed claims table (``data/<tier>/tables/claims_paper<N>.csv``). The evidence stays one
click away: each tier's column head links to the tier's results page, and each cell's
``title`` carries the full verdict (the scale an undecidable row needs, why a row has no
verdict, which table it comes from).

The matrix is an HTML table (``<div class="verdict-matrix">``), so each cell carries a CSS
class per verdict (``verdict-reproduced`` ...) and its tier (``data-tier``):
``docs/assets/boexplore.css`` colours the words and, on a narrow screen, stacks each claim's
cells under its statement instead of scrolling sideways. On GitHub the same table renders
without the colours.

What a paper contributes is one :class:`MatrixRows` declaration in :data:`MATRIX`: its claims
table, its tiers, and a mark its statements carry (paper 2's are reconstructions). Three
hooks, each a field of a declaration and nothing else:

* **Several rows per claim** (paper 2's per-problem rows): one cell; when the rows disagree it
  counts them per verdict ("2 reproduced / 5 not reproduced"), the rows named in its title.
* **Several sources per tier** (:attr:`MatrixTier.sources`, files under ``data/<folder>/`` in
  order of precedence): a claim's rows come from the first source that holds the claim. Paper
  2's default column reads its re-run under the current rules first and the committed default
  table for the claims that re-run did not decide again.
* **Per-band columns** (:data:`BAND`): a source with a ``band`` column (long format: one row
  per claim, or claim part, and band, e.g. paper 1's parts by band of d in
  ``claims_paper1_bands.csv``: ``2-6``, ``50-60``, ``100``, ``180``) becomes a column group, the tier's label over one sub-column per band, ordered by
  their first number. The band label is free text; the verdict is read from ``verdict``,
  or ``decision`` in a table of parts (:data:`VERDICT_COLUMNS`), and a claim's several parts
  in one band are counted per verdict like paper 2's problems. Declare it as one more tier, e.g. ``MatrixTier("replicate-beyond-d",
  "d band", "results-paper1-beyond-d.md", sources=("tables/claims_paper1_dband.csv",))``.
"""

from __future__ import annotations

import html
import re
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

#: The column of a source that splits a tier into per-band sub-columns.
BAND = "band"


@dataclass(frozen=True)
class MatrixTier:
    """One column (or column group): a tier's folder under ``data/``, its short label, its
    results page, and optionally the files it reads (relative to ``data/<folder>/``, first
    holding a claim wins; empty: ``tables/<the paper's claims table>``)."""

    folder: str
    label: str
    page: str  # a docs page, relative to docs/ (an anchor may follow)
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class MatrixRows:
    """One paper's rows: the claims table of each tier, the columns in reading order, and a
    mark every statement carries (``mark``, explained by ``mark_title``) when the statements
    are not the paper's own words."""

    title: str
    table: str  # file name under data/<tier>/tables/
    tiers: tuple[MatrixTier, ...]
    mark: str = ""
    mark_title: str = ""


#: (what a committed verdict starts with, word shown, CSS class suffix), first match wins.
WORDS: tuple[tuple[str, str, str], ...] = (
    (REPRODUCED, "reproduced", "reproduced"),
    (NOT_REPRODUCED, "not reproduced", "not-reproduced"),
    (UNDECIDABLE_PREFIX, "undecidable", "undecidable"),
    ("undecidable", "undecidable", "undecidable"),
    (UNDECIDED, "undecidable", "undecidable"),
    ("inconclusive", "undecidable", "undecidable"),
    (MISSING, "not tested", "not-tested"),
)
ABSENT = ("not in this tier", "absent")
ABSENT_BAND = ("not in this band", "absent")

PAPER1_TIERS = (
    MatrixTier("replicate-decide", "decide", "results-paper1-decide.md"),
    MatrixTier("replicate-beyond-d", "beyond d", "results-paper1-beyond-d.md"),
    # where each verdict holds: the beyond-d tier's parts re-decided per band of d
    MatrixTier(
        "replicate-beyond-d",
        "beyond d, by d band",
        "results-paper1-beyond-d.md",
        sources=("tables/claims_paper1_bands.csv",),
    ),
    MatrixTier("replicate-long", "long", "results-paper1-long.md"),
    MatrixTier("replicate", "replicate", "results-paper1-replicate.md"),
    MatrixTier("default", "default", "results-paper1-default.md"),
)
#: Paper 2: its replicate tier once released (config/replicate-paper2.yaml), then the default
#: run. The committed default table predates the paired rules; the default cells re-run under
#: them (checks/) decide P2-C1, C2, C3 and C5's dynamic rows, the table the rest (P2-C4).
PAPER2_TIERS = (
    MatrixTier("replicate-paper2", "replicate", "results-paper2.md"),
    MatrixTier(
        "default",
        "default",
        "results-paper2.md#default-run",
        sources=("checks/paper2-paired-2026-12-07.csv", "tables/claims_paper2.csv"),
    ),
)
PAPER1 = MatrixRows("Paper 1", "claims_paper1.csv", PAPER1_TIERS)
PAPER2 = MatrixRows(
    "Paper 2",
    "claims_paper2.csv",
    PAPER2_TIERS,
    mark="reconstructed",
    mark_title="the paper's full text was not available: the statement is our reconstruction",
)
#: The papers in the matrix, in order.
MATRIX: tuple[MatrixRows, ...] = (PAPER1, PAPER2)


def verdict_word(verdict: object) -> tuple[str, str]:
    """(word, CSS class suffix) of a committed verdict: ``reproduced``, ``not reproduced``,
    ``undecidable`` (with or without its scale or reason), ``not tested`` (missing data)."""
    text = str(verdict).strip()
    for start, word, css in WORDS:
        if text == start or text.startswith(start + ":") or text.startswith(start + " "):
            return word, css
    raise ValueError(f"unknown verdict {text!r}: not one of {[w[0] for w in WORDS]}")


def _key(row: pd.Series) -> tuple[str, str]:
    variant = row.get("variant")
    return str(row["claim_id"]), "" if pd.isna(variant) else str(variant)


def row_label(statistic: object) -> str:
    """What one of a claim's several rows is about: the statistic's trailing parentheses up to
    a ``;`` (``nn1d, nn_warm``), else the statistic itself."""
    text = "" if pd.isna(statistic) else " ".join(str(statistic).split())
    m = re.search(r"\(([^()]*)\)$", text)
    return m[1].split(";")[0].strip() if m else text


@dataclass(frozen=True)
class Cell:
    """A cell: its verdict words with their CSS suffixes and counts, and the hover text."""

    words: tuple[tuple[str, str, int], ...]  # (word, css, rows); one entry when rows agree
    title: str

    def html(self, tier: str) -> str:
        """The ``<td>`` of this cell in the column labelled ``tier``."""
        if len(self.words) == 1:
            (word, css, _), = self.words  # fmt: skip
            spans = f'<span class="verdict verdict-{css}" title="{html.escape(self.title)}">{word}</span>'  # fmt: skip
        else:
            spans = "<br>".join(
                f'<span class="verdict verdict-{css}" title="{html.escape(self.title)}">{n} {word}</span>'  # fmt: skip
                for word, css, n in self.words
            )
        return f'<td data-tier="{html.escape(tier)}">{spans}</td>'


#: The column a row's verdict is read from, first present wins: the claims tables' ``verdict``,
#: or the ``decision`` of a table of claim parts (``claims_paper1_bands.csv``).
VERDICT_COLUMNS = ("verdict", "decision")
#: The column that names one of a claim's rows in the hover text, first present wins.
LABEL_COLUMNS = ("statistic", "part")


def _first(row: pd.Series, columns: Sequence[str]) -> object:
    return next((row[c] for c in columns if c in row.index and not pd.isna(row[c])), "")


def _cell(rows: list[pd.Series], origin: str) -> Cell:
    """One claim's rows in one column: one word when they agree, else a count per word; the
    title gives each row's full verdict (named by :func:`row_label`) unless all are equal."""
    verdicts = [" ".join(str(_first(r, VERDICT_COLUMNS)).split()) for r in rows]
    words = [verdict_word(v) for v in verdicts]
    where = f" (from {origin})" if origin else ""
    if len(set(verdicts)) == 1:
        title = verdicts[0] if len(rows) == 1 else f"{verdicts[0]} on all {len(rows)}"
    else:
        title = "; ".join(
            f"{row_label(_first(r, LABEL_COLUMNS)) or f'row {i}'}: {v}"
            for i, (r, v) in enumerate(zip(rows, verdicts, strict=True), 1)
        )
    counts = Counter(words)
    seen = list(dict.fromkeys((w[1], w[2]) for w in WORDS if (w[1], w[2]) in counts))
    return Cell(tuple((w, c, counts[(w, c)]) for w, c in seen), title + where)


def tier_cells(
    table: pd.DataFrame, origins: dict[str, str] | None = None
) -> dict[tuple[str, str], Cell]:
    """Per (claim, variant): the cell of a tier's claims table; several rows of one claim (one
    per problem or statistic) give one word when they agree, a count per word otherwise.
    ``origins`` names, per claim id, the file a claim's rows came from (multi-source tiers)."""
    groups: dict[tuple[str, str], list[pd.Series]] = {}
    for _, row in table.iterrows():
        groups.setdefault(_key(row), []).append(row)
    origins = origins or {}
    return {key: _cell(rows, origins.get(key[0], "")) for key, rows in groups.items()}


def read_tier(
    repo: Path, tier: MatrixTier, table: str
) -> tuple[pd.DataFrame, dict[str, str]] | None:
    """A tier's rows (``None`` when none of its sources is committed) and, for a tier of
    several sources, the source each claim's rows came from."""
    sources = tier.sources or (f"tables/{table}",)
    frames, origins = [], {}
    for source in sources:
        path = repo / "data" / tier.folder / source
        if not path.is_file():
            continue
        frame = pd.read_csv(path, dtype={"variant": str, BAND: str})
        fresh = [c for c in dict.fromkeys(frame["claim_id"].astype(str)) if c not in origins]
        frames.append(frame[frame["claim_id"].astype(str).isin(fresh)])
        origins |= {c: f"data/{tier.folder}/{source}" for c in fresh}
    if not frames:
        return None
    merged = pd.concat(frames, ignore_index=True)
    return merged, (origins if len(sources) > 1 else {})


@dataclass(frozen=True)
class Column:
    """One rendered column: its tier, its band (``""`` when the tier has none), its cells."""

    tier: MatrixTier
    band: str
    cells: dict[tuple[str, str], Cell]

    @property
    def name(self) -> str:
        """The label of its cells (``data-tier``): the tier, with the band when it has one."""
        return f"{self.tier.label} {self.band}" if self.band else self.tier.label


def tier_columns(tier: MatrixTier, table: pd.DataFrame, origins: dict[str, str]) -> list[Column]:
    """One column per tier, or one per band when the tier's rows carry a :data:`BAND`."""
    if BAND not in table.columns:
        return [Column(tier, "", tier_cells(table, origins))]
    bands = table[BAND].fillna("").astype(str)
    return [
        Column(tier, band, tier_cells(table[bands == band], origins))
        for band in sorted(dict.fromkeys(bands), key=band_order)
    ]


def band_order(band: str) -> tuple[float, str]:
    """Bands by their first number (``2-6`` before ``50-60`` before ``100``), then by name."""
    m = re.match(r"\s*(\d+(?:\.\d+)?)", band)
    return (float(m[1]) if m else float("inf"), band)


def _statements(tables: Sequence[pd.DataFrame]) -> dict[tuple[str, str], str]:
    """Per row key, the claim's one-line statement (first tier that has the row)."""
    out: dict[tuple[str, str], str] = {}
    for table in tables:
        for _, row in table.iterrows():
            text = "" if pd.isna(row.get("claim")) else " ".join(str(row["claim"]).split())
            if text or _key(row) not in out:  # a table without statements (parts) yields
                out[_key(row)] = out.get(_key(row)) or text
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


def _claim_cell(key: tuple[str, str], statement: str, rows: MatrixRows) -> str:
    claim, variant = key
    name = f"<strong>{html.escape(claim)}</strong>"
    if variant:
        name += f" (<code>{html.escape(variant)}</code>)"
    mark = (
        f' <em class="verdict-matrix__mark" title="{html.escape(rows.mark_title)}">'
        f"({html.escape(rows.mark)})</em>"
        if rows.mark
        else ""
    )
    return f"{name} {html.escape(statement)}{mark}"


def _head(rows: MatrixRows, columns: list[Column], link_prefix: str) -> str:
    """One header row, or two when a tier is split into bands (its label over its bands)."""
    banded = any(c.band for c in columns)
    span = ' rowspan="2"' if banded else ""
    first, second = [f"<th{span}>{html.escape(rows.title)} claim</th>"], []
    for tier in dict.fromkeys(c.tier for c in columns):
        mine = [c for c in columns if c.tier == tier]
        link = f'<a href="{link_prefix}{tier.page}">{html.escape(tier.label)}</a>'
        if mine[0].band:
            first.append(f'<th colspan="{len(mine)}">{link}</th>')
            second += [f"<th>{html.escape(c.band)}</th>" for c in mine]
        else:
            first.append(f"<th{span}>{link}</th>")
    lines = [f"<tr>{''.join(first)}</tr>"] + ([f"<tr>{''.join(second)}</tr>"] if second else [])
    return f"<thead>{''.join(lines)}</thead>"


def rows_html(repo: Path, rows: MatrixRows, link_prefix: str = "") -> list[str]:
    """The lines of one paper's table of the matrix (one per claim, the open and close)."""
    columns, tables = [], []
    for tier in rows.tiers:
        read = read_tier(repo, tier, rows.table)
        if read is not None:
            columns += tier_columns(tier, *read)
            tables.append(read[0])
    if not columns:
        return []
    # rows are the claims of the tiers' claims tables; a band table adds cells, not rows (its
    # parts of a claim's other decision, e.g. C3's tie-aware order, have no row of their own)
    claims = [t for t in tables if BAND not in t.columns]
    statements = _statements(claims or tables)
    # the table's open, head and body open on one line, its close on one: a claim per line
    lines = [f'<table class="verdict-matrix__table">{_head(rows, columns, link_prefix)}<tbody>']
    for key in sorted(statements, key=_sort_key):
        tds = []
        for column in columns:
            cell = column.cells.get(key)
            if cell is None:
                word, css = ABSENT_BAND if column.band else ABSENT
                cell = Cell(
                    ((word, css, 0),),
                    f"no row in the {column.name} {'column' if column.band else 'tier'}",
                )
            tds.append(cell.html(column.name))
        lines.append(f"<tr><td>{_claim_cell(key, statements[key], rows)}</td>{''.join(tds)}</tr>")
    lines.append("</tbody></table>")
    return lines


def _tier_links(repo: Path, papers: Sequence[MatrixRows], link_prefix: str) -> str:
    """``Paper 1: decide · long ...; Paper 2: default``: every tier with rows, linked."""
    parts = []
    for rows in papers:
        links = " · ".join(
            f'<a href="{link_prefix}{t.page}">{html.escape(t.label)}</a>'
            for t in dict.fromkeys(rows.tiers)
            if read_tier(repo, t, rows.table) is not None
        )
        if links:
            parts.append(f"{html.escape(rows.title)}: {links}" if len(papers) > 1 else links)
    return "; ".join(parts)


def verdict_matrix(repo: Path, link_prefix: str = "", papers: Sequence[MatrixRows] = MATRIX) -> str:
    """The matrix as an HTML block (links relative to ``docs/``, prefixed by ``link_prefix``:
    ``docs/`` for the README)."""
    blocks = {rows: rows_html(repo, rows, link_prefix) for rows in papers}
    blocks = {rows: lines for rows, lines in blocks.items() if lines}
    if not blocks:
        return "*(no claims table committed yet under `data/<tier>/tables/`)*"
    note = "".join(
        f" {html.escape(r.title)}'s statements marked ({html.escape(r.mark)}): "
        f"{html.escape(r.mark_title)}."
        for r in blocks
        if r.mark
    )
    tables = [line for lines in blocks.values() for line in lines]  # a table per paper
    return "\n".join(
        [
            '<div class="verdict-matrix">',
            *tables,
            f"<p>The evidence of each tier: {_tier_links(repo, list(blocks), link_prefix)}. "
            f"Hover a verdict for its full text.{note}</p>",
            "</div>",
        ]
    )
