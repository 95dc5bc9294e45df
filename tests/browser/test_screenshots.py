"""The home page and one tutorial page per language in both colour schemes; screenshots on request.

The dark pages are checked with axe-core, which test_pages.py runs in the
light scheme only. With SCREENSHOTS=1, each page is also saved, full length,
for review: test-artifacts/screenshots/PAGE-LANG-SCHEME.png (ignored by git).
"""

from __future__ import annotations

import os

import pytest

from tests.browser.harness import ARTIFACTS

SHOTS = ARTIFACTS / "screenshots"
# (name, English path): each in both languages
PAGES = [("home", "/"), ("leaf-nodes", "/leaf-nodes/")]
SCHEMES = {"light": "default", "dark": "slate"}

AXE_SERIOUS = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
  .filter(v => ['serious', 'critical'].includes(v.impact))
  .map(v => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)"""


@pytest.mark.parametrize("mode", SCHEMES)
def test_home_and_a_tutorial_page_in_each_colour_scheme(new_context, server, axe_source, mode):
    screenshots = os.environ.get("SCREENSHOTS") == "1"
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = new_context(color_scheme=mode)
    context.add_init_script(axe_source)
    page = context.new_page()
    problems = []
    for name, english in PAGES:
        for language, path in (("en", english), ("zh", "/zh" + english)):
            page.goto(server.url(path), wait_until="load")
            scheme = page.evaluate("() => document.body.getAttribute('data-md-color-scheme')")
            assert scheme == SCHEMES[mode], f"{path}: scheme {scheme!r} in {mode} mode"
            if screenshots:
                shot = SHOTS / f"{name}-{language}-{mode}.png"
                page.screenshot(path=shot, full_page=True)
                assert shot.stat().st_size > 10_000, f"{shot} looks empty"
            if mode == "dark":
                problems += [f"{path} (dark): {v}" for v in page.evaluate(AXE_SERIOUS)]
    assert not new_context.blocked(context), new_context.blocked(context)
    context.close()
    assert not problems, "axe-core in the dark scheme:\n" + "\n".join(problems)
