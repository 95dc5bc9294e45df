"""Screenshots for review: the home page and one tutorial page per language, light and dark.

Written to test-artifacts/screenshots/PAGE-LANG-SCHEME.png (ignored by git).
The dark pages are also checked with axe-core, which test_pages.py runs in
the light scheme only.
"""

from __future__ import annotations

import pytest

from browser.harness import ARTIFACTS

SHOTS = ARTIFACTS / "screenshots"
# (name, English path): each in both languages
PAGES = [("home", "/"), ("leaf-nodes", "/leaf-nodes/")]
SCHEMES = {"light": "default", "dark": "slate"}

AXE_SERIOUS = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
  .filter(v => ['serious', 'critical'].includes(v.impact))
  .map(v => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)"""


@pytest.mark.parametrize("mode", SCHEMES)
def test_screenshots_of_home_and_a_tutorial_page(new_context, server, axe_source, mode):
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
            shot = SHOTS / f"{name}-{language}-{mode}.png"
            page.screenshot(path=shot, full_page=True)
            assert shot.stat().st_size > 10_000, f"{shot} looks empty"
            if mode == "dark":
                problems += [f"{path} (dark): {v}" for v in page.evaluate(AXE_SERIOUS)]
    assert not new_context.blocked(context), new_context.blocked(context)
    context.close()
    assert not problems, "axe-core in the dark scheme:\n" + "\n".join(problems)
