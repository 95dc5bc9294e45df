"""Every page of both languages, loaded once in Chromium (see Visitor in visits.py):

no console error, no request leaving 127.0.0.1, no failed request, a language
switcher that lands on the twin, no horizontal scroll at 375 px, no broken
internal link or anchor, and no serious or critical axe-core violation.
"""

from __future__ import annotations

import pytest

from sitepages import LANGUAGES, language_of, page_id, page_url, sources, twin
from tests.browser.harness import broken_links
from tests.browser.visits import SWITCHER_CLICKED
from tests.site_build import built_pages

SOURCES = sources()


def _twin_url(source) -> str:
    return page_url(twin(source, "zh" if language_of(source) == "en" else "en"))


def test_every_built_page_is_checked(site_dir):
    """The pages the tests below are parametrized with are exactly the built ones."""
    built, checked = built_pages(site_dir), sorted(page_url(source) for source in SOURCES)
    assert built == checked, (
        f"built but not checked: {sorted(set(built) - set(checked))}; "
        f"checked but not built: {sorted(set(checked) - set(built))}"
    )
    for language in LANGUAGES:
        assert sum(language_of(source) == language for source in SOURCES) >= 10, language


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_page_loads_without_errors_or_outside_requests(visitor, source):
    path = page_url(source)
    visit = visitor.visit(path)
    problems = (
        [f"console error: {error}" for error in visit.console_errors]
        + [f"request leaving 127.0.0.1 (blocked): {url}" for url in sorted(set(visit.outside_requests))]
        + [f"failed request: {failure}" for failure in visit.failed_requests]
    )
    assert not problems, f"{path}:\n" + "\n".join(problems)


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_language_switcher_leads_to_the_twin(visitor, source):
    path = page_url(source)
    visit = visitor.visit(path)
    assert visit.switcher_target == _twin_url(source), (
        f"{path}: the language switcher ({visit.switcher}) points at {visit.switcher_target or 'nothing'}, "
        f"expected {_twin_url(source)}"
    )
    if path in SWITCHER_CLICKED:
        assert visit.landed == _twin_url(source), f"{path}: clicking the language switcher landed on {visit.landed}"


def test_the_clicked_switchers_are_pages_of_the_site(visitor):
    assert SWITCHER_CLICKED <= {page_url(source) for source in SOURCES}


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_no_horizontal_scroll_at_375px(visitor, source):
    path = page_url(source)
    scroll_width, inner_width = visitor.visit(path).phone_widths
    assert 0 < scroll_width <= inner_width, (
        f"{path} scrolls horizontally at 375 px: the document is {scroll_width} px wide "
        f"(window {inner_width} px); wide content must scroll inside its own block"
    )


@pytest.mark.parametrize("source", [s for s in SOURCES if s.name == "torch-versions.md"], ids=page_id)
def test_the_versions_page_reads_on_a_phone_without_scrolling_a_table(visitor, source):
    """Its table of pages and releases has three columns; what differs is a list, per page and section."""
    wide = visitor.visit(page_url(source)).phone_wide_tables
    assert not wide, f"{page_url(source)}: at 375 px, tables {wide} px wide scroll sideways in their box"


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_no_broken_internal_link_or_anchor(visitor, server, site_dir, source):
    path = page_url(source)
    visit = visitor.visit(path)
    assert visit.links, f"{path}: no links found at all"
    broken = broken_links(visit.links, site_dir, server)
    assert not broken, f"{path} has broken links:\n" + "\n".join(broken)


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_axe_finds_no_serious_or_critical_violation(visitor, axe_source, source):
    path = page_url(source)
    violations = visitor.visit(path).axe_violations
    assert violations is not None, "axe-core did not run"
    report = [
        f"{v['impact']} {v['id']} ({v['help']}), {len(v['nodes'])} element(s):\n    "
        + "\n    ".join(v["nodes"][:5])
        for v in violations
    ]
    assert not report, f"{path}:\n" + "\n".join(report)
