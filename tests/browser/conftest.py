"""Session fixtures of the browser tests: the served site, one Chromium, one visit per page.

Every context a test opens comes from `new_context`, which aborts and records
any request that would leave 127.0.0.1 (see visits.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitepages import page_url, sources
from tests.browser.harness import AXE, CHROMIUM, CHROMIUM_ARGS, SiteServer, chromium_missing, unavailable
from tests.browser.visits import Contexts, Visitor
from tests.site_build import SUBPATH

# A site built already (`mkdocs build --strict --site-dir DIR`): the browser tests
# use it instead of building one, to iterate on them faster (see tests/README.md).
PREBUILT = os.environ.get("BROWSER_TESTS_SITE")


@pytest.fixture(scope="session")
def site_dir(request):
    """The strictly built site, or BROWSER_TESTS_SITE: a site already built, to iterate faster."""
    if PREBUILT:
        return Path(PREBUILT)
    site, result = request.getfixturevalue("built_site")
    if result.returncode != 0:
        # A strict build that warns aborts in the middle (the Chinese build runs
        # inside the English one): what it left is not the site.
        log = (result.stdout + result.stderr)[-2000:]
        pytest.fail(f"the site did not build (see test_mkdocs_build_strict_has_no_warnings):\n{log}", pytrace=False)
    return site


@pytest.fixture(scope="session")
def server(site_dir):
    with SiteServer(site_dir, prefix=SUBPATH) as running:
        yield running


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright")
    if chromium_missing():
        unavailable("chromium")
    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def axe_source() -> str:
    if not AXE.is_file():
        unavailable("axe")
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def new_context(browser):
    contexts = Contexts(browser)
    yield contexts
    contexts.close()


@pytest.fixture(scope="session")
def visitor(new_context, server):
    # Without axe-core the other checks still run; test_axe... skips or fails on its own.
    axe_source = AXE.read_text(encoding="utf-8") if AXE.is_file() else None
    return Visitor(new_context, server, [page_url(source) for source in sources()], axe_source)
