"""A missing address gets a 404 page in its own language, which works like any page."""

from __future__ import annotations

import pytest

from tests.browser.harness import broken_links

# (language, a missing address, the page's heading, its home)
NOT_FOUND = [
    ("en", "/no-such-page/", "404 - Page not found", "/"),
    ("zh", "/zh/no-such-page/", "404 - 页面不存在", "/zh/"),
]

STATE = """() => ({
  lang: document.documentElement.lang,
  heading: document.querySelector('.md-content h1').textContent.trim(),
  home: document.querySelector('.md-content a').href,
  switcher: Object.fromEntries([...document.querySelectorAll('a.md-select__link[hreflang]')]
                                  .map(a => [a.hreflang, a.href])),
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
})"""


@pytest.mark.parametrize("language, missing, heading, home", NOT_FOUND, ids=["en", "zh"])
def test_a_missing_page_gets_a_404_page_in_its_language(
    new_context, server, site_dir, axe_source, language, missing, heading, home
):
    assert (site_dir / home.lstrip("/") / "404.html").is_file(), f"no {home}404.html was built"
    context = new_context()
    context.add_init_script(axe_source)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append((m.text, m.location.get("url"))))
    page.on("pageerror", lambda error: errors.append((str(error), "")))
    response = page.goto(server.url(missing), wait_until="load")
    assert response.status == 404
    state = page.evaluate(STATE)
    state["home"] = server.site_path(state["home"])
    assert (state["lang"], state["heading"], state["home"]) == (language, heading, home)
    switcher = {lang: server.site_path(href) for lang, href in state["switcher"].items()}
    assert switcher == {"en": "/", "zh": "/zh/"}, "a 404 has no twin: the switcher offers the homes"
    assert not broken_links(state["links"], site_dir, server)
    # The one error allowed: the browser's note that the document itself is a 404.
    errors = [error for error in errors if error[1] != server.url(missing)]
    assert not errors, f"console errors on the {language} 404 page: {errors}"
    violations = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
        .violations.filter(v => ['serious', 'critical'].includes(v.impact)).map(v => v.id)""")
    assert not violations, f"axe-core on the {language} 404 page: {violations}"
    assert not new_context.blocked(context), new_context.blocked(context)
    context.close()
