"""The browser checks fire: a synthetic page breaking each rule is caught by each check.

Without this, a check that silently found nothing (a selector that no longer
matches, an event never listened to) would pass on the real site forever.
"""

from __future__ import annotations

import pytest

from tests.browser import harness
from tests.browser.harness import SiteServer, broken_links
from tests.browser.visits import Visitor

BROKEN_PAGE = """<!doctype html>
<html lang="en"><head><title>Broken on purpose</title>
<link rel="stylesheet" href="https://cdn.example.com/theme.css">
</head><body>
<a class="md-select__link" hreflang="zh" href="/wrong/">中文</a>
<main class="md-content">
  <h1 id="top">Broken on purpose</h1>
  <img src="/missing.png">
  <p style="color: #eeeeee; background: #ffffff">text too faint to read</p>
  <div style="width: 2000px">far too wide</div>
  <div class="md-typeset__scrollwrap" style="overflow: auto; width: 300px"><table><tr>
    <td style="white-space: nowrap">a table row far wider than its box, far wider than its box</td></tr></table></div>
  <a href="/nowhere/">a missing page</a> <a href="/#absent">a missing anchor</a>
  <a href="/#top">a good anchor</a> <a href="https://example.com/">another site</a>
</main>
<script>console.error("boom")</script>
</body></html>
"""


@pytest.fixture(scope="module")
def broken_visit(tmp_path_factory, new_context, axe_source):
    site = tmp_path_factory.mktemp("broken-site")
    (site / "index.html").write_text(BROKEN_PAGE, encoding="utf-8")
    (site / "wrong").mkdir()
    (site / "wrong" / "index.html").write_text("<!doctype html><title>wrong</title>", encoding="utf-8")
    with SiteServer(site) as server:
        visitor = Visitor(new_context, server, ["/"], axe_source)
        yield visitor.visit("/"), visitor, site, server


def test_a_request_leaving_127_0_0_1_is_blocked_and_reported(broken_visit):
    visit, visitor, _, _ = broken_visit
    assert set(visit.outside_requests) == {"https://cdn.example.com/theme.css"}
    assert "https://cdn.example.com/theme.css" in visitor.contexts.blocked(visitor.context)


def test_console_errors_and_missing_files_are_reported(broken_visit):
    visit, _, _, server = broken_visit
    assert any("boom" in error for error in visit.console_errors), visit.console_errors
    assert f"{server.origin}/missing.png: HTTP 404" in visit.failed_requests, visit.failed_requests


def test_horizontal_scroll_at_375px_is_measured(broken_visit):
    scroll_width, inner_width = broken_visit[0].phone_widths
    assert inner_width == 375 and scroll_width > 2000


def test_a_table_wider_than_its_scroll_box_at_375px_is_measured(broken_visit):
    assert len(broken_visit[0].phone_wide_tables) == 1 and broken_visit[0].phone_wide_tables[0] > 300


def test_broken_links_and_anchors_are_found(broken_visit):
    visit, _, site, server = broken_visit
    broken = broken_links(visit.links, site, server)
    assert len(broken) == 2, broken
    assert broken[0] == f"{server.origin}/#absent: no element with id 'absent' on /"
    assert broken[1] == f"{server.origin}/nowhere/: no such page or file"


def test_a_link_leaving_a_sub_path_site_is_broken(tmp_path):
    with SiteServer(tmp_path, prefix="/sub/") as server:
        assert server.url("/zh/") == f"{server.origin}/sub/zh/"
        assert broken_links([f"{server.origin}/zh/"], tmp_path, server) == [
            f"{server.origin}/zh/: outside the site, which is served under /sub/"
        ]


def test_the_switcher_landing_is_recorded(broken_visit):
    assert broken_visit[0].landed == "/wrong/"


def test_axe_reports_a_critical_violation_and_low_contrast(broken_visit):
    ids = {violation["id"]: violation["impact"] for violation in broken_visit[0].axe_violations}
    assert ids.get("image-alt") == "critical", ids
    assert ids.get("color-contrast") == "serious", ids


@pytest.mark.parametrize("required", [False, True])
def test_a_missing_tool_skips_locally_and_fails_in_ci(monkeypatch, required):
    monkeypatch.setattr(harness, "REQUIRED", required)
    expected = pytest.fail.Exception if required else pytest.skip.Exception
    with pytest.raises(expected, match="apt-get install -y chromium fonts-noto-cjk"):
        harness.unavailable("chromium")
    with pytest.raises(expected, match="npm ci --prefix tests/browser"):
        harness.unavailable("axe")
