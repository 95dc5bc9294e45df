"""What the suite's tests share: the one strict build of the site (tests/site_build.py), made once per run."""

import functools
import json
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from filelock import FileLock

from tests.site_build import build_site, parsed


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups from the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep on one pytest-xdist worker the tests that share an expensive per-worker fixture: the
    page visits in one browser, the search index in a browser, the parsed built pages, and the
    portability pass (one fresh-interpreter server per environment for all pages). The site
    itself is built once for all workers (``built_site``)."""
    browser_tests = Path(__file__).parent / "browser"
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "visitor" in names:
            group = "browser-visits"
        elif item.path.name == "test_search.py" and item.path.is_relative_to(browser_tests):
            group = "browser-search"
        elif item.path.is_relative_to(browser_tests):
            group = "browser-other"
        elif "built_site" in names or "built_page" in names:
            group = "built-site"
        elif "replays" in names:
            group = "portability"
        else:
            continue
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, worker_id):
    """The site as published (tests/site_build.py): (site dir, CompletedProcess).

    Built once per run: under pytest-xdist the first worker that needs it builds
    it, under a file lock, in the folder the workers of this run share, and the
    others wait for it and reuse it.
    """
    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    site, log = shared / "site", shared / "site-build.json"
    with FileLock(str(shared / "site-build.lock")):
        if not log.is_file():
            result = build_site(site)
            log.write_text(json.dumps([result.returncode, result.stdout, result.stderr]), encoding="utf-8")
    returncode, stdout, stderr = json.loads(log.read_text(encoding="utf-8"))
    return site, subprocess.CompletedProcess(["mkdocs", "build"], returncode, stdout, stderr)


@pytest.fixture(scope="session")
def built_page(built_site):
    """The parsed HTML of a page of the built site, by URL path ("/zh/leaf-nodes/"), parsed once a session."""
    site, result = built_site
    assert result.returncode == 0, "the site did not build; see test_mkdocs_build_strict_has_no_warnings"

    @functools.cache
    def page(url_path: str) -> BeautifulSoup:
        return parsed((site / url_path.lstrip("/") / "index.html").read_text(encoding="utf-8"))

    return page
