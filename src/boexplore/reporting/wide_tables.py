"""Wide committed tables as a readable summary on the page and a CSV to download.

A table of 34 columns does not fit a page (paper 2's coverage per cell is ~4,700 px wide), so
the page shows the few columns a reader decides on and links the whole table as CSV. The
committed tables under ``data/<tier>/tables/`` are Markdown pipe tables or CSV;
:func:`read_pipe_table` reads the former, and the docs hook
(:mod:`boexplore.reporting.mkdocs_hooks`) serves every one of them as
``tables/<tier>/<name>.csv`` on the site.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from boexplore.reporting.text_format import MISSING, cell, num

#: Paper 2's coverage summary: (column of paper2_e2_coverage, heading on the page).
COVERAGE_COLUMNS = (
    ("problem_key", "problem"),
    ("reg", "regulariser"),
    ("lam", "λ"),
    ("n_seeds", "seeds"),
    ("frac_seeds_all_covered_trained", "trained policy: seeds with every pair covered"),
    ("frac_seeds_all_covered_untrained", "control g₀ (untrained): seeds covered"),
    ("frac_seeds_all_covered_zero", "control g ≡ 0: seeds covered"),
    ("informative_frac", "informative pairs"),
)
REGULARISERS = {"func": "RKHS norm", "anchor": "anchored L2"}


def read_pipe_table(text: str) -> pd.DataFrame:
    """A Markdown pipe table (header, rule, rows) as a DataFrame; an empty cell is missing."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip().startswith("|")]
    if len(lines) < 2 or set(lines[1].replace("|", "").strip()) - set("-: "):
        raise ValueError("not a Markdown pipe table (no header and rule lines)")
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in [lines[0], *lines[2:]]]
    csv = "\n".join(",".join(f'"{c}"' for c in row) for row in rows)
    return pd.read_csv(io.StringIO(csv))


def table_as_csv(path: Path) -> str:
    """A committed table (``.csv`` as is, ``.md`` pipe table converted) as CSV text."""
    if path.suffix == ".csv":
        return path.read_text()
    return read_pipe_table(path.read_text()).to_csv(index=False)


def coverage_summary(repo: Path, tier: str) -> str:
    """Paper 2's coverage per cell in eight columns, with the whole table as CSV."""
    name = "paper2_e2_coverage.md"
    path = repo / "data" / tier / "tables" / name
    if not path.is_file():
        return MISSING.format(what=f"`data/{tier}/tables/{name}`")
    table = read_pipe_table(path.read_text())
    lines = [
        "| " + " | ".join(head for _, head in COVERAGE_COLUMNS) + " |",
        "|" + "---|" * len(COVERAGE_COLUMNS),
    ]
    for _, row in table.iterrows():
        values = [
            REGULARISERS.get(str(row[col]), str(row[col])) if col == "reg" else
            str(row[col]) if col in ("problem_key", "n_seeds") else num(row[col])
            for col, _ in COVERAGE_COLUMNS
        ]  # fmt: skip
        lines.append("| " + " | ".join(cell(v) for v in values) + " |")
    csv = f"tables/{tier}/{Path(name).with_suffix('.csv').name}"
    return "\n".join(lines) + (
        f"\n\nAll {len(table.columns)} columns of the {len(table)} cells (coverage of every "
        f"pair, certified rounds, band ratios, β): [CSV]({csv})."
    )
