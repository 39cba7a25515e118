"""MkDocs hooks: committed figures served from the repository root; wide pages.

**Figures.** The figures live in ``figures/<run>/`` (next to their PDF and provenance JSON),
outside ``docs/``. Instead of copying them into ``docs/`` (two copies that drift), the build adds
them as site files under the same relative path, so a page links ``figures/default/x.png``
and ``mkdocs build --strict`` validates the link like any other.

**Wide pages.** A page whose front matter sets ``wide: true`` (the results pages, whose claims
tables have five columns of sentences) gets ``class="boexplore-wide"`` on its ``<body>``;
``docs/assets/boexplore.css`` lets such a page use the window's width and scroll a table that
still does not fit sideways, with its first column kept in view.

**Links in raw HTML.** MkDocs rewrites the links of Markdown (``[x](page.md)``) but not those
of raw HTML, such as the verdict matrix (:mod:`boexplore.reporting.verdict_matrix`), whose
``<a href="page.md">`` must also work on GitHub. The build rewrites each ``href="<page>.md"``
of a page's HTML to that page's URL, and warns (a failed ``--strict`` build) when no such page
exists.

**Tables on a phone.** Each cell of a Markdown table gets its column's heading as
``data-label``; on a narrow screen ``docs/assets/boexplore.css`` stacks a table's rows into
blocks, each cell under its heading, instead of scrolling the table sideways.

**Generated-region markers.** ``<!-- BEGIN generated:NAME -->`` / ``<!-- END ... -->``
(:mod:`boexplore.reporting.results_text`) are dropped from a page's Markdown before it is
rendered: a marker at the start of a line would otherwise end the paragraph or list item it
sits in (Markdown reads it as an HTML block), splitting a sentence such as "Measured: 33 min"
into two paragraphs.
"""

from __future__ import annotations

import logging
import re
from html import escape, unescape
from pathlib import Path

from mkdocs.structure.files import File, Files

from boexplore.reporting.wide_tables import table_as_csv

FIGURE_RUNS = (
    "default",
    "replicate",
    "replicate-long",
    "replicate-beyond-d",
    "replicate-decide",
    "samplers",
)
SUFFIXES = (".png", ".pdf", ".json")
WIDE_CLASS = "boexplore-wide"
BODY = re.compile(r"<body\b")
REGION_MARKER = re.compile(r"<!-- (?:BEGIN|END) generated:[\w.-]+ -->")
RAW_MD_LINK = re.compile(r'href="(?P<path>[\w./-]+\.md)(?P<anchor>#[\w-]*)?"')
log = logging.getLogger("mkdocs.plugins.boexplore")
MD_TABLE = re.compile(r"<table>\s*<thead>(?P<head>.*?)</thead>(?P<body>.*?)</table>", re.S)
HEAD_CELL = re.compile(r"<th\b[^>]*>(?P<text>.*?)</th>", re.S)
ROW = re.compile(r"<tr>(?P<cells>.*?)</tr>", re.S)
BODY_CELL = re.compile(r"<td(?=[\s>])")
TAG = re.compile(r"<[^>]+>")


def on_files(files: Files, config) -> Files:
    """Add ``figures/<run>/*.{png,pdf,json}`` of the repository to the site, and every
    committed table ``data/<run>/tables/*.{csv,md}`` as ``tables/<run>/<name>.csv``."""
    root = Path(config["config_file_path"]).resolve().parent
    for run in FIGURE_RUNS:
        for path in sorted((root / "figures" / run).glob("*")):
            if path.suffix in SUFFIXES:
                uri = f"figures/{run}/{path.name}"
                if files.get_file_from_path(uri) is None:
                    files.append(File.generated(config, uri, abs_src_path=str(path)))
        tables = root / "data" / run / "tables"
        for path in sorted(tables.glob("*.csv")) + sorted(tables.glob("*.md")):
            uri = f"tables/{run}/{path.stem}.csv"
            if files.get_file_from_path(uri) is None:
                try:
                    content = table_as_csv(path)
                except ValueError:  # a Markdown file that is not one pipe table
                    continue
                files.append(File.generated(config, uri, content=content))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Drop the generated-region markers (see the module docstring)."""
    return REGION_MARKER.sub("", markdown)


def on_page_content(html: str, page, config, files: Files) -> str:
    """Rewrite the ``href="<page>.md"`` links of raw HTML (see the module docstring)."""

    def url(m: re.Match) -> str:
        target = files.get_file_from_path(m["path"])
        if target is None:
            log.warning(
                "%s links to %s, which is not a page of the site", page.file.src_uri, m["path"]
            )
            return m[0]
        return f'href="{target.url_relative_to(page.file)}{m["anchor"] or ""}"'

    return label_table_cells(RAW_MD_LINK.sub(url, html))


def label_table_cells(html: str) -> str:
    """Give every body cell of a Markdown table (``<table>`` without attributes) its column's
    heading as ``data-label`` (see the module docstring)."""

    def table(m: re.Match) -> str:
        heads = [
            " ".join(unescape(TAG.sub("", h["text"])).split())
            for h in HEAD_CELL.finditer(m["head"])
        ]

        def row(r: re.Match) -> str:
            labels = iter(heads)

            def cell(_: re.Match) -> str:
                label = next(labels, "")
                return f'<td data-label="{escape(label, quote=True)}"' if label else "<td"

            return "<tr>" + BODY_CELL.sub(cell, r["cells"]) + "</tr>"

        return f"<table><thead>{m['head']}</thead>{ROW.sub(row, m['body'])}</table>"

    return MD_TABLE.sub(table, html)


def on_post_page(output: str, page, config) -> str:
    """Mark a page with ``wide: true`` in its front matter (see the module docstring)."""
    if not (page.meta or {}).get("wide"):
        return output
    return BODY.sub(f'<body class="{WIDE_CLASS}"', output, count=1)
