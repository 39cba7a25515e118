"""docs/gallery.md: every figure of a figures/<run> directory with its report caption.

Captions are the report's own (``workflow/report/<name>.rst``, or ``paper1_<name>.rst``
for the paper-1 figures) converted to Markdown, so the gallery and the report say the
same. Regenerate with ``python -m boexplore.reporting.gallery``; a test fails when a
figure is added without regenerating.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

SECTIONS: tuple[tuple[str, str], ...] = (
    ("Paper 1 — exploration of acquisition functions", "paper1"),
    ("Paper 2 — randomized regularized neural policies", "paper2"),
    ("Workflow checks", "other"),
)
PAPER1 = (
    "exploration_trajectories",
    "otsd_vs_oe",
    "exploration_vs_dimension",
    "variant_effects",
    "performance_vs_exploration",
    "taxonomy_hasse",
    "tour_quality",
)


def caption_file(name: str, caption_dir: Path) -> Path | None:
    """The report caption of figure ``name`` (None if it has none)."""
    for stem in (name, f"paper1_{name}"):
        path = caption_dir / f"{stem}.rst"
        if path.exists():
            return path
    return None


def rst_to_markdown(text: str) -> str:
    """The small RST subset used in captions: ``literal``, :math:`x`, *emphasis*; one paragraph."""
    text = re.sub(r":math:`([^`]+)`", r"$\1$", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return " ".join(text.split())


def section_of(name: str) -> str:
    """Gallery section key of figure ``name``."""
    if name.startswith("paper2_"):
        return "paper2"
    return "paper1" if name in PAPER1 else "other"


def gallery_markdown(figure_dir: Path, caption_dir: Path, link_prefix: str) -> str:
    """Markdown page listing every PNG in ``figure_dir`` (images linked via ``link_prefix``)."""
    names = sorted(p.stem for p in figure_dir.glob("*.png"))
    if not names:
        raise ValueError(f"no figures (*.png) in {figure_dir}")
    order = {n: i for i, n in enumerate(PAPER1)}
    lines = [
        "---",
        "# figures at the content width of a wide page (docs/assets/boexplore.css)",
        "wide: true",
        "---",
        "",
        "# Figure gallery",
        "",
        f"Every figure of `figures/{figure_dir.name}`, with the caption "
        "it has in the Snakemake report. Each PNG has a PDF and a JSON provenance sidecar "
        "(input files with sha256, config section, package versions) next to it.",
        "Regenerate this page with `python -m boexplore.reporting.gallery`.",
        "",
    ]
    for title, key in SECTIONS:
        members = sorted(
            (n for n in names if section_of(n) == key), key=lambda n: (order.get(n, 99), n)
        )
        if not members:
            continue
        lines += [f"## {title}", ""]
        for name in members:
            cap = caption_file(name, caption_dir)
            text = rst_to_markdown(cap.read_text()) if cap else "(no report caption)"
            lines += [
                f"### {name}",
                "",
                f"![{name}]({link_prefix}/{name}.png)",
                "",
                text,
                "",
                f"[PDF]({link_prefix}/{name}.pdf) · [provenance]({link_prefix}/{name}.json)",
                "",
            ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write docs/gallery.md from figures/default (paths relative to the repository root)."""
    ap = argparse.ArgumentParser(description="Write the figure gallery page.")
    ap.add_argument("--root", type=Path, default=Path("."), help="repository root")
    ap.add_argument("--run", default="default", help="figures/<run> to list")
    ap.add_argument("--out", type=Path, default=None, help="default <root>/docs/gallery.md")
    args = ap.parse_args(argv)
    text = gallery_markdown(
        args.root / "figures" / args.run,
        args.root / "workflow" / "report",
        f"figures/{args.run}",  # the site serves the repository's figures/ (mkdocs_hooks)
    )
    out = args.out or args.root / "docs" / "gallery.md"
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
