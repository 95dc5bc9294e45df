"""What the browser tests share: a local server for the built site (under a sub-path), where
Chromium and axe-core are, and the link check.

Nothing here opens a browser on import; the fixtures in conftest.py do, once
per worker.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import sys
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from sitepages import DEFAULT_LANGUAGE, LANGUAGES, ROOT

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


# ---------------------------------------------------------------- the server


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files under the server's prefix; an unknown path gets its language's 404.html, as a host would."""

    prefix = "/"

    def log_message(self, *args):  # quiet
        pass

    def translate_path(self, path: str) -> str:
        site_path = urlsplit(path).path
        if not site_path.startswith(self.prefix):
            return str(Path(self.directory) / ".outside-the-site-prefix" / "none")  # no such file: a 404
        return super().translate_path("/" + path[len(self.prefix):])

    def send_error(self, code, message=None, explain=None):
        if code != 404:
            return super().send_error(code, message, explain)
        root = Path(self.directory)
        path = urlsplit(self.path).path
        language = next((lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE and path.startswith(
            f"{self.prefix}{lang}/")), "")
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


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # A browser that closes a connection mid-response (a page navigated away from,
        # a cancelled prefetch) is routine, not an error worth a traceback in the log.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class SiteServer:
    """A threaded http.server on 127.0.0.1 and a free port, serving one directory under ``prefix``."""

    def __init__(self, directory: Path, handler_class: type[SiteHandler] | None = None, prefix: str = "/"):
        handler_class = type("Handler", (handler_class or SiteHandler,), {"prefix": prefix})
        handler = functools.partial(handler_class, directory=str(directory))
        self.prefix = prefix
        self.httpd = _Server(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, path: str) -> str:
        """The address of a site path ("/zh/leaf-nodes/") on this server."""
        return self.origin + self.prefix + path.lstrip("/")

    def site_path(self, url: str) -> str | None:
        """The site path of an address on this server (its inverse of ``url``), None if it is not the site's."""
        if not url.startswith(self.origin + self.prefix):
            return None
        return "/" + url[len(self.origin + self.prefix):]


def is_local(url: str) -> bool:
    """Whether a request stays on 127.0.0.1 (data:, blob: and about: never leave the page)."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return parts.hostname == "127.0.0.1"


# ---------------------------------------------------------------- links


@functools.cache
def _ids(html_file: Path) -> frozenset[str]:
    """Every id (and <a name>) of a built page: what a link's #fragment can point at."""
    soup = BeautifulSoup(html_file.read_text(encoding="utf-8"), "lxml")  # as tests.site_build.parsed
    return frozenset(value for tag in soup.find_all(True) for value in (tag.get("id"), tag.get("name")) if value)


def broken_links(links: list[str], site: Path, server: SiteServer) -> list[str]:
    """The links to this server whose page or file, or anchor on that page, does not exist;
    a link to the server outside the site's prefix is broken too (it would leave a sub-path site)."""
    broken = []
    for href in sorted(set(links)):
        parts = urlsplit(href)
        if f"{parts.scheme}://{parts.netloc}" != server.origin:
            continue  # another site: a link, not a request (requests are blocked and reported)
        site_path = server.site_path(f"{server.origin}{parts.path}")
        if site_path is None:
            broken.append(f"{href}: outside the site, which is served under {server.prefix}")
            continue
        target = site / unquote(site_path).lstrip("/")
        if parts.path.endswith("/"):
            target = target / "index.html"
        if not target.is_file():
            broken.append(f"{href}: no such page or file")
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _ids(target):
            broken.append(f"{href}: no element with id {unquote(parts.fragment)!r} on {site_path}")
    return broken
