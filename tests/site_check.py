"""Open a built documentation site in headless Chromium and fail on what a reader would hit.

Usage: ``python tests/site_check.py site/ [--pages / tutorial/]``

The site is served over HTTP on localhost (a page opened from ``file://`` cannot fetch the
search index). Every HTML page is opened in headless Chromium with a probe appended by the
server, which waits for the page's ``load`` event and records the images that did not load
(``naturalWidth == 0``); Chromium's console log (``--enable-logging=stderr``) catches
JavaScript errors and failed resource loads. Every same-site link, image, stylesheet and
script of every page is resolved against the built files. Exit code 0 when nothing is broken,
1 otherwise (findings printed as JSON).
"""

from __future__ import annotations

import argparse
import functools
import html
import json
import re
import subprocess
import sys
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_check import find_chromium  # noqa: E402

MARKER = "boexplore-site-check"
CONSOLE = re.compile(r':CONSOLE[^\]]*\] "(?P<msg>.*)", source: (?P<src>\S*)')
PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images];
  const out = {title: document.title, images: imgs.length,
               broken_images: imgs.filter((i) => i.naturalWidth === 0).map((i) => i.getAttribute("src"))};
  const pre = document.createElement("pre");
  pre.id = "MARKER";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>""".replace("MARKER", MARKER)


def site_pages(site: Path) -> list[str]:
    """Every HTML page of a built site as a URL path (``/``, ``/tutorial/``)."""
    pages = []
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel != "404.html":
            pages.append("/" + (rel[: -len("index.html")] if rel.endswith("index.html") else rel))
    return pages


class _Refs(HTMLParser):
    """Collects href / src attributes of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        for key, value in attrs:
            if key in ("href", "src") and value:
                self.refs.append(value)


def broken_refs(site: Path, page: str) -> list[str]:
    """Same-site links / images / scripts of ``page`` that resolve to no built file."""
    path = site / (page.lstrip("/") + "index.html" if page.endswith("/") else page.lstrip("/"))
    parser = _Refs()
    parser.feed(path.read_text(encoding="utf-8"))
    out = []
    for ref in parser.refs:
        url = urlsplit(urljoin(f"http://site{page}", ref))
        if url.netloc != "site" or url.scheme not in ("http", ""):
            continue
        target = site / unquote(url.path).lstrip("/")
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            out.append(f"{page}: link {ref!r} -> no such file")
    return out


def serve(site: Path, probe: str = PROBE) -> ThreadingHTTPServer:
    """An HTTP server for ``site`` on a free localhost port that appends ``probe`` to pages."""

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def send_head(self):  # append the probe to HTML pages
            path = Path(self.translate_path(self.path))
            if path.is_dir():
                path = path / "index.html"
            if path.suffix != ".html" or not path.exists():
                return super().send_head()
            body = path.read_text(encoding="utf-8").replace("</body>", probe + "</body>", 1)
            data = body.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            import io

            return io.BytesIO(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def open_page(url: str, chromium: str) -> tuple[dict | None, list[dict]]:
    """(probe result or None, console messages) of one page in headless Chromium."""
    proc = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    m = re.search(rf'<pre id="{MARKER}">(.*?)</pre>', proc.stdout, re.S)
    console = [c.groupdict() for c in CONSOLE.finditer(proc.stderr)]
    return (json.loads(html.unescape(m.group(1))) if m else None), console


def check(site: Path, pages: list[str] | None = None, chromium: str | None = None) -> dict:
    """Check ``pages`` (default: all) of a built site; {"ok", "problems", "pages"}."""
    chromium = chromium or find_chromium()
    if chromium is None:
        raise FileNotFoundError("no chromium executable found")
    site = Path(site).resolve()
    pages = pages or site_pages(site)
    problems: list[str] = []
    server = serve(site)
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        for page in pages:
            problems += broken_refs(site, page)
            result, console = open_page(base + page, chromium)
            if result is None:
                problems.append(f"{page}: the page did not finish loading")
            else:
                problems += [f"{page}: image {s!r} did not load" for s in result["broken_images"]]
            problems += [f"{page}: console: {c['msg']} (source {c['src']})" for c in console]
    finally:
        server.shutdown()
    return {"ok": not problems and bool(pages), "problems": problems, "pages": len(pages)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--pages", nargs="*", help="URL paths to open (default: every page)")
    args = ap.parse_args(argv)
    report = check(args.site, args.pages)
    print(json.dumps(report, indent=1))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
