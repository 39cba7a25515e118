"""MkDocs hooks: serve the committed figures from the repository root inside the site.

The figures live in ``figures/<run>/`` (next to their PDF and provenance JSON), outside
``docs/``. Instead of copying them into ``docs/`` (two copies that drift), the build adds
them as site files under the same relative path, so a page links ``figures/default/x.png``
and ``mkdocs build --strict`` validates the link like any other.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File, Files

FIGURE_RUNS = ("default", "replicate", "replicate-long")
SUFFIXES = (".png", ".pdf", ".json")


def on_files(files: Files, config) -> Files:
    """Add ``figures/<run>/*.{png,pdf,json}`` of the repository to the site."""
    root = Path(config["config_file_path"]).resolve().parent
    for run in FIGURE_RUNS:
        for path in sorted((root / "figures" / run).glob("*")):
            if path.suffix in SUFFIXES:
                uri = f"figures/{run}/{path.name}"
                if files.get_file_from_path(uri) is None:
                    files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files
