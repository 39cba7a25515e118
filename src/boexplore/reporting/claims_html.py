"""Claims table (CSV, the format of ``boexplore.analysis.paper1.claims.COLUMNS``) as a standalone HTML page.

The Snakemake report shows HTML results inline (in a frame) while CSV results are
only offered as downloads, so each claims table gets an HTML rendering with the
verdicts coloured and the statistic of each claim under its text.
"""

from __future__ import annotations

import html
import math
import os
from pathlib import Path

import pandas as pd

from boexplore.io import atomic_write_text

VERDICT_CLASS = {"reproduced": "ok", "not reproduced": "bad", "inconclusive": "unk"}
_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:14px;margin:12px}
h1{font-size:18px} table{border-collapse:collapse;width:100%}
th,td{border:1px solid #ccc;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#f2f2f2} td.num{text-align:right;white-space:nowrap}
.stat{color:#555;font-size:12px;margin-top:3px}
.ok{background:#d8f0d8} .bad{background:#f6d5d5} .unk{background:#f3f3f3}
p.rule{color:#444;font-size:13px}
"""
RULE = (
    "Verdict rule: <em>reproduced</em> when the whole interval lies above the threshold "
    "(ci_low &gt; threshold), <em>not reproduced</em> when it lies below (ci_high &lt; "
    "threshold), otherwise <em>inconclusive</em> (also when data are missing or there are "
    "too few seeds). Thresholds were fixed in the config before results were seen."
)


def _num(v: object) -> str:
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return html.escape(str(v))
    if math.isnan(f):
        return "n/a"
    return f"{f:.3g}" if not f.is_integer() or abs(f) >= 1e6 else str(int(f))


def claims_html(df: pd.DataFrame, title: str) -> str:
    """The claims as an HTML document (one row per claim)."""
    need = {"claim_id", "claim", "value", "ci_low", "ci_high", "threshold", "verdict", "n"}
    missing = sorted(need - set(df.columns))
    if missing:
        raise ValueError(f"claims table lacks columns {missing}")
    head = ["claim", "statement (statistic)", "value", "95% interval", "threshold", "verdict"]
    head += ["n", "note"]
    rows = []
    for r in df.to_dict("records"):
        verdict = str(r["verdict"])
        stat = r.get("statistic")
        stat_html = (
            f'<div class="stat">{html.escape(str(stat))}</div>'
            if isinstance(stat, str) and stat
            else ""
        )
        note = r.get("note")
        note = "" if note is None or (isinstance(note, float) and math.isnan(note)) else note
        cells = [
            f"<td><b>{html.escape(str(r['claim_id']))}</b></td>",
            f"<td>{html.escape(str(r['claim']))}{stat_html}</td>",
            f'<td class="num">{_num(r["value"])}</td>',
            f'<td class="num">[{_num(r["ci_low"])}, {_num(r["ci_high"])}]</td>',
            f'<td class="num">{_num(r["threshold"])}</td>',
            f'<td class="{VERDICT_CLASS.get(verdict, "unk")}">{html.escape(verdict)}</td>',
            f'<td class="num">{_num(r["n"])}</td>',
            f"<td>{html.escape(str(note))}</td>",
        ]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    counts = df["verdict"].value_counts()
    summary = ", ".join(f"{int(c)} {html.escape(str(v))}" for v, c in counts.items())
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
            f"<h1>{html.escape(title)}</h1>",
            f"<p>{len(df)} claims: {summary}.</p>",
            '<table class="claims"><thead><tr>'
            + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>",
            *rows,
            "</tbody></table>",
            f'<p class="rule">{RULE}</p>',
            "</body></html>",
            "",
        ]
    )


def write_claims_html(
    csv_path: str | os.PathLike, html_path: str | os.PathLike, title: str
) -> Path:
    """Render the claims CSV at ``csv_path`` to ``html_path`` (atomic rename)."""
    return atomic_write_text(claims_html(pd.read_csv(csv_path), title), html_path)
