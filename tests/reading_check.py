"""Open a built documentation site in headless Chromium and measure what a reader takes in.

Usage: ``python tests/reading_check.py site/``

Four checks of a results site a reader can use, each measured in a real browser window:

* at 1440 × 900 no figure of the page's content renders narrower than :data:`MIN_FIGURE_PX`,
  and every figure of a results page (and of the home page) has a caption (``<figcaption>``);
* no page's visible text holds "nan", "not stated" or a lone "?" standing for a value, and no
  user page names an issue number (the tracker is not public);
* the verdict matrix of the home page needs no sideways scroll in a 390 × 844 phone window
  (neither the table inside its frame nor the page itself is wider than the window), and no
  table of the home page or a results page scrolls sideways there;
* no results page is taller than :data:`MAX_RESULTS_PAGE_PX` at 1440 × 900.

The site is served over HTTP on localhost (``site_check.serve``); a probe script appended to
each page records the measurements once the page has loaded. Exit code 0 when every check
passes, 1 otherwise (the failures printed as JSON).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_check import find_chromium  # noqa: E402
from site_check import serve, site_pages  # noqa: E402

MIN_FIGURE_PX = 700
MAX_RESULTS_PAGE_PX = 10_000
DESKTOP = (1440, 900)
PHONE = (390, 844)
#: URL paths of the results pages: the paper pages and every page below them.
RESULTS_PREFIXES = ("/results-paper1", "/results-paper2")
MATRIX_SELECTOR = ".verdict-matrix table"
MARKER = "boexplore-reading-check"
#: Words a reader cannot use in place of a value: "nan" (as pandas prints a missing number),
#: "not stated", a lone "?" (as in "yes / ?"). A question mark ending a sentence is left alone,
#: and so is "NaN" in running text, the name of the floating-point value an API returns.
UNUSABLE = re.compile(r"\bnan\b|\bnot stated\b|(?:^|[\s/(|])\?(?=[\s/)|,;.]|$)", re.M)
#: An issue reference ("issue 42"): the tracker is not public, so a user page names none.
#: The developer pages (:data:`DEVELOPER_PAGES`) keep theirs as the history of a design.
ISSUE_REF = re.compile(r"\bissues? #?\d+\b", re.I)
DEVELOPER_PAGES = ("/architecture/", "/interfaces/")
#: A table cell that is nothing but "nan" (any case: "NaN" is how pandas prints it) or "?".
EMPTY_CELL = re.compile(r"^(?:nan|\?)$", re.I)
PROBE = """<script>
window.addEventListener("load", () => setTimeout(() => {
  const content = document.querySelector(".md-content") || document.body;
  const figures = [...content.querySelectorAll("img")].map((i) => ({
    src: i.getAttribute("src"), width: Math.round(i.getBoundingClientRect().width),
    captioned: Boolean(i.closest("figure") && i.closest("figure").querySelector("figcaption"))}));
  const table = document.querySelector("MATRIX");
  let matrix = null;
  if (table) {
    const frame = table.parentElement;
    matrix = {table: Math.round(table.getBoundingClientRect().width),
              frame: Math.round(frame.getBoundingClientRect().width),
              scroll: frame.scrollWidth, client: frame.clientWidth};
  }
  const cells = [...content.querySelectorAll("td")].map((td) => td.innerText.trim());
  const scrolling = [...content.querySelectorAll("table")].filter((t) => {
    const frame = t.closest(".md-typeset__scrollwrap") || t.parentElement;
    return frame.scrollWidth > frame.clientWidth + 1 || t.getBoundingClientRect().width > window.innerWidth + 1;
  }).length;
  const out = {figures, matrix, text: content.innerText, cells, scrolling,
               height: document.documentElement.scrollHeight,
               page_width: document.documentElement.scrollWidth, window: window.innerWidth};
  const pre = document.createElement("pre");
  pre.id = "MARKER";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 300));
</script>""".replace("MARKER", MARKER).replace("MATRIX", MATRIX_SELECTOR)


def measure(url: str, chromium: str, size: tuple[int, int]) -> dict:
    """The probe's measurements of one page in a headless window of ``size`` (width, height)."""
    proc = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", f"--window-size={size[0]},{size[1]}",
         "--virtual-time-budget=5000", "--dump-dom", url],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    m = re.search(rf'<pre id="{MARKER}">(.*?)</pre>', proc.stdout, re.S)
    if not m:
        raise RuntimeError(f"{url}: the probe gave no result; chromium:\n{proc.stderr[-2000:]}")
    return json.loads(html.unescape(m.group(1)))


def unusable_words(text: str) -> list[str]:
    """The unusable words of ``text`` with a little context each ("... value nan → ...")."""
    out = []
    for m in UNUSABLE.finditer(text):
        start, end = max(0, m.start() - 40), min(len(text), m.end() + 40)
        out.append(" ".join(text[start:end].split()))
    return out


def is_results_page(page: str) -> bool:
    """Whether the URL path ``page`` is a results page (:data:`RESULTS_PREFIXES`)."""
    return page.startswith(RESULTS_PREFIXES)


def page_failures(page: str, desktop: dict) -> list[str]:
    """Failures of one page measured at 1440 px: narrow figures, unusable words, height."""
    out = [
        f"{page}: figure {f['src']} renders {f['width']} px wide (< {MIN_FIGURE_PX})"
        for f in desktop["figures"]
        if f["width"] < MIN_FIGURE_PX
    ]
    out += [f"{page}: visible text holds {w!r}" for w in unusable_words(desktop["text"])]
    if page not in DEVELOPER_PAGES:
        out += [f"{page}: names {m[0]!r}, which a reader cannot open"
                for m in ISSUE_REF.finditer(desktop["text"])]  # fmt: skip
    out += [
        f"{page}: visible text holds a table cell {c!r}"
        for c in desktop.get("cells", [])
        if EMPTY_CELL.match(c)
    ]
    if is_results_page(page) or page == "/":
        out += [
            f"{page}: figure {f['src']} has no caption"
            for f in desktop["figures"]
            if not f.get("captioned", True)
        ]
    if is_results_page(page) and desktop["height"] > MAX_RESULTS_PAGE_PX:
        out.append(f"{page}: {desktop['height']} px tall (> {MAX_RESULTS_PAGE_PX})")
    return out


def phone_failures(page: str, phone: dict) -> list[str]:
    """Tables of ``page`` that scroll sideways in the phone window."""
    n = phone.get("scrolling", 0)
    return [f"{page}: {n} table(s) scroll sideways at {PHONE[0]} px"] if n else []


def matrix_failures(page: str, phone: dict) -> list[str]:
    """Failures of the verdict matrix of ``page`` measured in the phone window."""
    m = phone["matrix"]
    if m is None:
        return [f"{page}: no verdict matrix ({MATRIX_SELECTOR})"]
    out = []
    if m["scroll"] > m["client"] + 1 or m["table"] > m["frame"] + 1:
        out.append(
            f"{page}: the verdict matrix scrolls sideways at {PHONE[0]} px "
            f"(table {m['table']} px in a {m['frame']} px frame)"
        )
    if phone["page_width"] > phone["window"] + 1:
        out.append(f"{page}: the page is {phone['page_width']} px wide at {PHONE[0]} px")
    return out


def check(
    site: Path,
    pages: list[str] | None = None,
    matrix_pages: tuple[str, ...] = ("/",),
    chromium: str | None = None,
) -> dict:
    """Run the four checks on ``pages`` (default: every page); {"ok", "failures", "pages"}."""
    chromium = chromium or find_chromium()
    if chromium is None:
        raise FileNotFoundError("no chromium executable found")
    site = Path(site).resolve()
    pages = pages or site_pages(site)
    failures: list[str] = []
    heights: dict[str, int] = {}
    server = serve(site, PROBE)
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        for page in pages:
            desktop = measure(base + page, chromium, DESKTOP)
            heights[page] = desktop["height"]
            failures += page_failures(page, desktop)
        for page in [*matrix_pages, *(p for p in pages if is_results_page(p))]:
            phone = measure(base + page, chromium, PHONE)
            failures += phone_failures(page, phone)
            if page in matrix_pages:
                failures += matrix_failures(page, phone)
    finally:
        server.shutdown()
    return {"ok": not failures and bool(pages), "failures": failures, "pages": len(pages),
            "heights": heights}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--pages", nargs="*", help="URL paths to open (default: every page)")
    args = ap.parse_args(argv)
    report = check(args.site, args.pages)
    print(json.dumps(report, indent=1, ensure_ascii=False))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
