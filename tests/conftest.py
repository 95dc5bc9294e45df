"""What the suite's tests share: the one strict build of the site.

tests/ and docs/hooks/ are on sys.path (pyproject.toml's ``pythonpath``), and
tests/docs_plugin.py runs everything from the repository root.
"""

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sitepages import ROOT

from browser.harness import SUBPATH

# The suite builds the site as it is published (README, "Publishing"): under a
# sub-path of a host, from a GitHub repository. Nothing is fetched from either;
# the browser tests serve the build under the same sub-path on 127.0.0.1.
SITE_URL = f"https://docs.example.org{SUBPATH}"
REPO_URL = "https://github.com/example-org/intermediate-gradients"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep together, on one pytest-xdist worker, the tests that share an expensive session fixture:
    everything that reads the built site (one strict build, one browser), and the portability pass
    (one fresh-interpreter server per environment for all pages)."""
    browser_tests = Path(__file__).parent / "browser"
    for item in items:
        if "built_site" in getattr(item, "fixturenames", ()) or item.path.is_relative_to(browser_tests):
            item.add_marker(pytest.mark.xdist_group("site"))
        elif "replays" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("portability"))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The site, built once per session with `mkdocs build --strict` for SITE_URL and REPO_URL:
    (site dir, CompletedProcess)."""
    site = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": SITE_URL, "REPO_URL": REPO_URL},
    )
    return site, result


@pytest.fixture(scope="session")
def built_page(built_site):
    """The parsed HTML of a page of the built site, by URL path ("/zh/leaf-nodes/"), parsed once a session."""
    site, result = built_site
    assert result.returncode == 0, "the site did not build; see test_mkdocs_build_strict_has_no_warnings"

    @functools.cache
    def parsed(url_path: str) -> BeautifulSoup:
        return BeautifulSoup((site / url_path.lstrip("/") / "index.html").read_text(encoding="utf-8"), "html.parser")

    return parsed
