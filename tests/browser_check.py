"""Open a Snakemake report in headless Chromium and check what a reader would see.

Usage: ``python tests/browser_check.py report.html [--expect-claims paper1 paper2]``

A probe script is appended to a copy of the report; Chromium runs the report's own
JavaScript and the probe, then dumps the DOM (``--dump-dom``). The probe loads every
image result from its embedded data URI (``naturalWidth > 0``), parses every HTML
result and counts the rows of its claims table, and looks for docutils "System
Message" blocks in the landing text, the captions and the rendered page. Exit code 0
when everything passes, 1 otherwise (the findings are printed as JSON).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--virtual-time-budget=30000",
    "--dump-dom",
)
MARKER = "boexplore-browser-check"

PROBE = """
<script>
(async () => {
  const out = {images: {}, tables: {}, system_messages: [], errors: []};
  try {
    const hasMsg = (s) => typeof s === "string" && s.includes("System Message");
    if (hasMsg(workflow_desc)) out.system_messages.push("landing text");
    for (const [path, res] of Object.entries(results)) {
      if (hasMsg(res.caption)) out.system_messages.push("caption of " + path);
      if (res.mime_type && res.mime_type.startsWith("image/")) {
        out.images[path] = await new Promise((resolve) => {
          const img = new Image();
          img.onload = () => resolve({w: img.naturalWidth, h: img.naturalHeight});
          img.onerror = () => resolve({w: 0, h: 0, error: "load failed"});
          img.src = res.data_uri;
        });
      } else if (res.mime_type === "text/html") {
        const text = await (await fetch(res.data_uri)).text();
        const doc = new DOMParser().parseFromString(text, "text/html");
        out.tables[path] = {
          tables: doc.querySelectorAll("table").length,
          rows: doc.querySelectorAll("table tbody tr").length,
        };
      }
    }
    await new Promise((r) => setTimeout(r, 500));  // let the report app render
    if (hasMsg(document.body.innerText)) out.system_messages.push("rendered page");
  } catch (err) {
    out.errors.push(String(err));
  }
  const pre = document.createElement("pre");
  pre.id = "MARKER";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
""".replace("MARKER", MARKER)


def find_chromium() -> str | None:
    """Path of a Chromium executable (Debian's ``chromium``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def probe_report(report: Path, chromium: str | None = None, timeout: float = 180) -> dict:
    """Run the probe on ``report`` in headless Chromium and return its findings."""
    exe = chromium or find_chromium()
    if exe is None:
        raise FileNotFoundError("chromium not found (Debian: apt-get install -y chromium)")
    html = report.read_text(encoding="utf-8")
    if "</body>" not in html:
        raise ValueError(f"{report} is not an HTML report (no </body>)")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "report.html"
        head, tail = html.rsplit("</body>", 1)
        copy.write_text(head + PROBE + "</body>" + tail, encoding="utf-8")
        profile = Path(tmp) / "profile"
        cmd = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", copy.as_uri()]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    m = re.search(rf'<pre id="{MARKER}">(.*?)</pre>', proc.stdout, re.S)
    if not m:
        raise RuntimeError(f"probe produced no output; chromium stderr:\n{proc.stderr[-3000:]}")
    return json.loads(_unescape(m.group(1)))


def _unescape(text: str) -> str:
    import html

    return html.unescape(text)


def problems(found: dict, expect_claims: list[str]) -> list[str]:
    """Human-readable failures of the probe's findings (empty when the report is fine)."""
    out = [f"script error: {e}" for e in found["errors"]]
    out += [f"docutils System Message in {where}" for where in found["system_messages"]]
    if not found["images"]:
        out.append("no image results in the report")
    out += [f"figure does not load: {p}" for p, v in found["images"].items() if v["w"] <= 0]
    for paper in expect_claims:
        hits = {p: v for p, v in found["tables"].items() if f"claims_{paper}" in p}
        if not hits:
            out.append(f"claims table of {paper} missing from the report")
        out += [f"claims table without rows: {p}" for p, v in hits.items() if v["rows"] <= 0]
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: probe a report and print the findings."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path)
    ap.add_argument("--expect-claims", nargs="*", default=["paper1", "paper2"])
    ap.add_argument("--chromium", default=None)
    args = ap.parse_args(argv)
    found = probe_report(args.report, args.chromium)
    fails = problems(found, args.expect_claims)
    print(json.dumps({"findings": found, "failures": fails}, indent=1))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
