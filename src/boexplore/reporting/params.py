"""Job parameters that show as a short summary in the Snakemake report.

Snakemake prints every job parameter with ``str()`` in the report, so a config
section passed as a parameter appears as a wall of Python dict text. A
``ReportParam`` is a plain ``dict`` for the job's script (it even pickles as one),
keeps ``dict``'s ``repr`` (Snakemake's params rerun trigger hashes the ``repr``, so
wrapping a parameter does not invalidate finished jobs) and only changes ``str()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ReportParam(dict):
    """A ``dict`` whose ``str()`` is a one-line summary naming the config section."""

    def __init__(self, value: Mapping[str, Any], section: str) -> None:
        super().__init__(value)
        self._section = section

    def __str__(self) -> str:
        keys = ", ".join(sorted(map(str, self)))
        if len(keys) > 80:
            keys = keys[:77] + "..."
        return f"config section '{self._section}' ({keys or 'empty'})"

    def __reduce__(self):  # pickle (the Snakemake script preamble) as a plain dict
        return (dict, (dict(self),))


def report_param(value: Mapping[str, Any] | None, section: str) -> ReportParam:
    """Wrap a config section passed as a job parameter (``None`` becomes an empty dict)."""
    return ReportParam(value or {}, section)
