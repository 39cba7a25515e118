"""A figure of a results page at reading size, with a caption saying what it shows and whence.

Region ``figure.<tier>.<name>`` of a page (:mod:`boexplore.reporting.results_text`) renders
``figures/<tier>/<name>.png`` as a ``<figure class="boexplore-figure">`` whose caption names
the tier first and then says what the figure shows: the report's own caption
(``workflow/report/[paper1_]<name>.rst``, as on the gallery page), so the page, the gallery and
the Snakemake report describe a figure in the same words. ``docs/assets/boexplore.css`` gives
the figure the content width of a wide page.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from boexplore.reporting.gallery import caption_file, rst_to_markdown

PREFIX = "figure."
#: The tier of each ``figures/<folder>``, as a caption names it.
TIER_NAMES = {
    "default": "Default run",
    "replicate": "Replicate tier",
    "replicate-long": "Long-budget tier",
    "replicate-beyond-d": "Beyond-d tier",
    "replicate-decide": "Decide tier",
}
CAPTION_DIR = Path("workflow") / "report"


def caption_html(markdown: str) -> str:
    """The caption's Markdown subset as HTML: text escaped, ```code``` kept as ``<code>``."""
    parts = re.split(r"`([^`]+)`", markdown)
    return "".join(
        f"<code>{html.escape(p)}</code>" if i % 2 else html.escape(p) for i, p in enumerate(parts)
    )


def figure_block(repo: Path, tier: str, name: str) -> str:
    """The ``<figure>`` of ``figures/<tier>/<name>.png`` with its tier and report caption."""
    if tier not in TIER_NAMES:
        raise KeyError(f"unknown figure folder {tier!r}; known: {', '.join(TIER_NAMES)}")
    png = repo / "figures" / tier / f"{name}.png"
    if not png.is_file():
        raise FileNotFoundError(f"{png.relative_to(repo)} is not committed")
    cap = caption_file(name, repo / CAPTION_DIR)
    if cap is None:
        raise FileNotFoundError(f"figure {name!r} has no report caption under {CAPTION_DIR}")
    text = caption_html(rst_to_markdown(cap.read_text()))
    alt = f"{TIER_NAMES[tier]}: {name.replace('_', ' ')}"
    return "\n".join(
        [
            '<figure class="boexplore-figure" markdown="span">',
            f"![{alt}](figures/{tier}/{name}.png)",
            f"<figcaption><strong>{TIER_NAMES[tier]}.</strong> {text}</figcaption>",
            "</figure>",
        ]
    )


def render_figure(region: str, repo: Path) -> str:
    """Body of region ``figure.<tier>.<name>``."""
    _, tier, name = region.split(".", 2)
    return figure_block(repo, tier, name)
