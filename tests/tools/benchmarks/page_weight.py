"""The bytes a first visit to each page transfers, against its budget.

One command, from the repository root:

    python -m tests.tools benchmarks.page_weight [--site DIR]

It builds the site (`mkdocs build --strict`, into a temporary folder), serves
it on 127.0.0.1 with the browser tests' server, and loads every page of both
languages in Debian's Chromium (Playwright), each in a fresh browser context:
an empty cache, as on a first visit. It adds up the bytes of every response
the page receives until the search worker has fetched the index and the
network is idle (HTML, CSS, JS, fonts, images;
headers included) and prints a table. The server sends files uncompressed, so
the budgets are checked against uncompressed bytes, an upper bound; the last
column is what the same files weigh gzip-compressed (level 6), as most hosts
would send them.

Not counted: `search/search_index.json`, the search index. Material's search
worker fetches it as soon as a page has loaded, but it is data for a search
the reader may never run, and its size grows with the whole site rather than
with the page; the table gives its size on its own line. The search worker's
own scripts are counted.

Budgets: a tutorial page (Markdown) at most 400 kB, a notebook page at most
600 kB (1 kB = 1000 bytes). The exit status is 1 when a page is over budget.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from sitepages import page_url, sources
from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS, SiteServer
from tests.tools.benchmarks.common import load_averages, measured_on, site_to_measure

BUDGET = {"tutorial": 400_000, "notebook": 600_000}
EXCLUDED = "search/search_index.json"
KINDS = ("html", "css", "js", "font", "image", "other")
SUFFIXES = {
    ".html": "html", ".css": "css", ".js": "js", ".mjs": "js", ".woff2": "font", ".woff": "font", ".ttf": "font",
    ".png": "image", ".svg": "image", ".jpg": "image", ".jpeg": "image", ".webp": "image", ".gif": "image",
    ".ico": "image",
}


def kind_of(path: str) -> str:
    notebooks = {"/notebooks/", "/zh/notebooks/"}
    return "notebook" if any(path.startswith(prefix) and path != prefix for prefix in notebooks) else "tutorial"


def served_file(site: Path, url: str) -> Path | None:
    path = unquote(urlsplit(url).path).lstrip("/")
    target = site / path
    if target.is_dir():
        target = target / "index.html"
    return target if target.is_file() else None


def resource_kind(file: Path | None, resource_type: str) -> str:
    if resource_type == "document":
        return "html"
    return SUFFIXES.get(file.suffix, "other") if file else "other"


def measure(site: Path) -> tuple[list[dict], int]:
    from playwright.sync_api import sync_playwright

    rows, index_bytes = [], 0
    gzipped: dict[Path, int] = {}
    with SiteServer(site) as server, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for path in sorted(page_url(source) for source in sources()):
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            finished = []
            context.on("requestfinished", finished.append)
            page = context.new_page()
            # The search worker starts after load and fetches the index last of all: wait
            # for it, then for quiet, so that nothing the first visit loads is missed.
            with context.expect_event(
                "requestfinished", lambda request: urlsplit(request.url).path.endswith(EXCLUDED), timeout=60_000,
            ):
                page.goto(server.url(path), wait_until="load")
            page.wait_for_load_state("networkidle")
            by_kind = dict.fromkeys(KINDS, 0)
            count = compressed = 0
            for request in finished:
                if not urlsplit(request.url).scheme.startswith("http"):
                    continue  # data: URIs are part of the file that holds them
                sizes = request.sizes()
                file = served_file(site, request.url)
                # The server sends files as they are, so the body is the file; Chromium
                # reports 0 for a worker's script, so the file's size is the reliable figure.
                body = file.stat().st_size if file else sizes["responseBodySize"]
                size = body + sizes["responseHeadersSize"]
                if urlsplit(request.url).path.endswith(EXCLUDED):
                    index_bytes = max(index_bytes, size)
                    continue
                by_kind[resource_kind(file, request.resource_type)] += size
                if file:
                    if file not in gzipped:
                        gzipped[file] = len(gzip.compress(file.read_bytes(), compresslevel=6))
                    compressed += gzipped[file] + sizes["responseHeadersSize"]
                count += 1
            context.close()
            rows.append({"path": path, "kind": kind_of(path), "requests": count,
                         "bytes": sum(by_kind.values()), "gzip": compressed, **by_kind})
        browser.close()
    return rows, index_bytes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    args = parser.parse_args()
    print(measured_on())
    print(f"load average at start: {load_averages()}")
    with site_to_measure(args.site, "page-weight-") as site:
        rows, index_bytes = measure(site)

    over = 0
    header = f"| {'page':<40} | {'kind':<8} | req | {'HTML':>6} | {'CSS':>6} | {'JS':>6} | {'fonts':>6} | " \
             f"{'images':>6} | {'other':>6} | {'total kB':>8} | budget |    | {'gzip kB':>7} |"
    print(header)
    print("|" + "|".join("-" * (len(cell) + 0) for cell in header.split("|")[1:-1]) + "|")
    for row in rows:
        budget = BUDGET[row["kind"]]
        ok = row["bytes"] <= budget
        over += not ok
        kb = lambda n: f"{n / 1000:6.1f}"  # noqa: E731
        print(f"| {row['path']:<40} | {row['kind']:<8} | {row['requests']:>3} | {kb(row['html'])} | "
              f"{kb(row['css'])} | {kb(row['js'])} | {kb(row['font'])} | {kb(row['image'])} | {kb(row['other'])} | "
              f"{row['bytes'] / 1000:8.1f} | {budget // 1000:>6} | {'OK' if ok else 'OVER':<4}| "
              f"{row['gzip'] / 1000:7.1f} |")
    for kind in BUDGET:
        sizes = [row["bytes"] for row in rows if row["kind"] == kind]
        if sizes:
            print(f"{kind} pages: {len(sizes)}, largest {max(sizes) / 1000:.1f} kB, "
                  f"budget {BUDGET[kind] // 1000} kB")
    print(f"not counted: {EXCLUDED}, {index_bytes / 1000:.1f} kB (fetched by the search worker after load)")
    print(f"pages over budget: {over}")
    print(f"load average at end: {load_averages()}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
