"""The one strict build of the site, for the suite (tests/conftest.py, tests/test_publishing.py) and the benchmarks,
and the addresses it is built for.

The suite builds the site as it is published (README, "Publishing"): under a
sub-path of a host (SITE_URL), from a GitHub repository (REPO_URL). Nothing is
fetched from either; the browser tests serve the build under the same sub-path
(SUBPATH) on 127.0.0.1 (tests/browser/harness.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from bs4 import BeautifulSoup, SoupStrainer

from sitepages import ROOT

# Where the suite's build is published, as GitHub serves a project's pages
# (https://org.github.io/repo/): under a sub-path, which the browser tests'
# server uses too, so that every link is checked where a sub-path breaks it.
SUBPATH = "/intermediate-gradients/"
SITE_URL = f"https://docs.example.org{SUBPATH}"
REPO_URL = "https://github.com/example-org/intermediate-gradients"


def build_site(site_dir: Path, *, cwd: Path = ROOT, published: bool = True) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` into site_dir, with SITE_URL and REPO_URL if ``published``.

    The build gets no PYTHONPATH: it must need nothing but docs/ (its hooks put
    their own folder on the path) and what `pip install .` installs.
    """
    variables = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SITE_URL", "REPO_URL")}
    variables["NO_MKDOCS_2_WARNING"] = "1"
    if published:
        variables |= {"SITE_URL": SITE_URL, "REPO_URL": REPO_URL}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
                          cwd=cwd, capture_output=True, text=True, env=variables)


def parsed(html: str, only: SoupStrainer | None = None) -> BeautifulSoup:
    """Built HTML, parsed with lxml (libxml2): it reads a page as a browser does (a <div> closes an
    open <p>) and is several times faster than html.parser on the site's pages."""
    return BeautifulSoup(html, "lxml", parse_only=only)


def built_pages(site: Path) -> list[str]:
    """URL paths of every page of a built site, e.g. '/', '/zh/leaf-nodes/': every index.html but the
    redirects (``redirect_target``), which only send the reader on."""
    folders = (html.parent.relative_to(site).as_posix() for html in site.rglob("index.html")
               if redirect_target(html.read_text(encoding="utf-8")) is None)
    return sorted("/" if folder == "." else f"/{folder}/" for folder in folders)


_REDIRECT = re.compile(r'<meta http-equiv="refresh" content="0; url=([^"]*)">')


def redirect_target(html: str) -> str | None:
    """Where a redirect page, as the mkdocs-redirects plugin writes it (mkdocs.yml), sends the reader:
    its URL relative to the page (``../new/``, maybe with a ``#section``); None for any other page.
    The page's script sends the reader's own #anchor on to that URL; its meta refresh drops it."""
    head = html[: html.find("</head>")]
    found = _REDIRECT.search(head) if "<title>Redirecting...</title>" in head else None
    return found.group(1) if found else None


def heading_ids(html: str) -> list[str]:
    """The ids of a built page's headings (its sections' anchors), in page order."""
    article = parsed(html, SoupStrainer("article"))
    return [heading["id"] for heading in article.find_all(["h1", "h2", "h3", "h4", "h5", "h6"], id=True)]
