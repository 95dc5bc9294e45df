"""What the browser tests share: the pages, a local server, Chromium, axe-core.

Nothing here opens a browser on import; the fixtures in conftest.py do, once
per session.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from docs_pages import DOCS, LANGUAGES, ROOT, built_pages, page_url  # noqa: F401 (the browser tests import them from here)

ARTIFACTS = ROOT / "test-artifacts"

# Debian's Chromium; Playwright's own browser download does not work on the test machines.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
# axe-core, pinned in tests/browser/package-lock.json; `npm ci --prefix tests/browser` installs it.
AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"

# .ci/run sets this: in CI a missing browser or axe-core fails instead of skipping.
REQUIRED = os.environ.get("BROWSER_TESTS_REQUIRED") == "1"

HOW_TO_INSTALL = {
    "playwright": "the Python package playwright is not installed: run `pip install \".[test]\"`",
    "chromium": (
        f"Chromium not found at {CHROMIUM}: install Debian's Chromium and the CJK fonts with "
        "`sudo apt-get install -y chromium fonts-noto-cjk` (what .ci/run does), "
        "or point CHROMIUM=/path/to/chromium at another build"
    ),
    "axe": (
        f"axe-core not found at {AXE.relative_to(ROOT)}: install the pinned version with "
        "`npm ci --prefix tests/browser` (what .ci/run does; needs Node.js and npm)"
    ),
}


def unavailable(what: str) -> None:
    """Skip (locally) or fail (in CI, BROWSER_TESTS_REQUIRED=1) saying how to install `what`."""
    message = f"browser tests cannot run: {HOW_TO_INSTALL[what]}"
    if REQUIRED:
        pytest.fail(message + " (BROWSER_TESTS_REQUIRED=1: in CI this is an error)", pytrace=False)
    pytest.skip(message)


def chromium_missing() -> bool:
    return not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM))


# ---------------------------------------------------------------- the pages


def source_pages() -> list[str]:
    """URL paths of every page of both languages, from docs/ (Markdown pages and notebooks).

    Tests are parametrized with these at collection time, before the site is
    built; test_every_built_page_is_checked proves they are exactly the
    index.html pages of the built site.
    """
    urls = []
    for language in LANGUAGES:
        for path in sorted((DOCS / language).rglob("*")):
            if path.suffix in (".md", ".ipynb") and ".ipynb_checkpoints" not in path.parts:
                urls.append(page_url(path))
    return urls


def language_of(url_path: str) -> str:
    return "zh" if url_path.startswith("/zh/") else "en"


def twin_of(url_path: str) -> str:
    return url_path.removeprefix("/zh") if language_of(url_path) == "zh" else "/zh" + url_path


def page_id(url_path: str) -> str:
    return url_path.strip("/") or "home"


# ---------------------------------------------------------------- the server


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files; an unknown path gets its language's 404.html, as a host would serve it."""

    def log_message(self, *args):  # quiet
        pass

    def send_error(self, code, message=None, explain=None):
        if code != 404:
            return super().send_error(code, message, explain)
        root = Path(self.directory)
        language = "zh" if urlsplit(self.path).path.startswith("/zh/") else ""
        page = root / language / "404.html"
        if not page.is_file():
            page = root / "404.html"
        body = page.read_bytes() if page.is_file() else b"404"
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class SiteServer:
    """A threaded http.server on 127.0.0.1 and a free port, serving one directory."""

    def __init__(self, directory: Path, handler_class: type[http.server.SimpleHTTPRequestHandler] | None = None):
        handler = functools.partial(handler_class or _Handler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "SiteServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, path: str) -> str:
        return self.origin + path


def is_local(url: str) -> bool:
    """Whether a request stays on 127.0.0.1 (data:, blob: and about: never leave the page)."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return parts.hostname == "127.0.0.1"


# ---------------------------------------------------------------- links


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.ids.update(value for name, value in attrs if name in ("id", "name") and value)


@lru_cache(maxsize=None)
def _ids(html_file: Path) -> frozenset[str]:
    parser = _Ids()
    parser.feed(html_file.read_text(encoding="utf-8"))
    return frozenset(parser.ids)


def broken_links(links: list[str], site: Path, origin: str) -> list[str]:
    """The links to this site (origin) whose page or file, or anchor on that page, does not exist."""
    broken = []
    for href in sorted(set(links)):
        parts = urlsplit(href)
        if f"{parts.scheme}://{parts.netloc}" != origin:
            continue  # another site: a link, not a request (requests are blocked and reported)
        target = site / unquote(parts.path).lstrip("/")
        if parts.path.endswith("/"):
            target = target / "index.html"
        if not target.is_file():
            broken.append(f"{href}: no such page or file")
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _ids(target):
            broken.append(f"{href}: no element with id {unquote(parts.fragment)!r} on {parts.path}")
    return broken
