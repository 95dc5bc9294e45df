"""Three fixes for mkdocs-static-i18n + Material, as a MkDocs hook (see mkdocs.yml).

1. One 404 page per language. Every language is built into the same site
   directory, so each build overwrites /404.html and the last language wins
   (mkdocs-static-i18n issue #284): the English 404 came out in Chinese. Here
   the default language's 404 is kept at /404.html and every other one is
   moved to /<locale>/404.html; their language switchers point at the homes.

2. No <link rel="alternate" hreflang> in the page head. Material's JavaScript
   fetches "sitemap.xml" relative to each such link (e.g. /zh/leaf-nodes/sitemap.xml),
   which does not exist: two 404s and two console errors on every page. The
   switcher's own links already point at the page's twin, and the hreflang
   alternates stay in /sitemap.xml, where search engines read them.

3. A relative language switcher on the home pages. The plugin links each home
   page's switcher to the homes as root-absolute paths ("/", "/zh/"), which
   lead out of the site when it is served under a sub-path
   (https://org.github.io/repo/). Here they become the twin's site-relative
   URL, which Material's ``url`` filter makes relative to the page, as it does
   on every other page. (A 404 page, served at any depth, keeps links
   absolute from site_url's path: nothing relative could work there.)
"""

from __future__ import annotations

import re
from copy import deepcopy
from pathlib import Path

from mkdocs.plugins import event_priority

_HEAD_ALTERNATE = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">\n?')
_default_404: dict[str, str] = {}


def _i18n(config):
    return config.plugins["i18n"]


def _default_locale(config) -> str:
    return next(lang.locale for lang in _i18n(config).config.languages if lang.default)


def on_post_page(output: str, page, config) -> str:
    return _HEAD_ALTERNATE.sub("", output)


@event_priority(-200)  # after the plugin's on_page_context (50) has set the page's alternates
def on_page_context(context, page, config, nav):
    # The plugin sets them as an attribute of config.extra (what Material's template
    # reads), not as its item.
    for alternate in getattr(config.extra, "alternate", None) or []:
        twin = page.file.alternates.get(alternate["lang"]) if hasattr(page.file, "alternates") else None
        if alternate["link"].startswith("/") and twin is not None:
            alternate["link"] = twin.url or "./"
    return context


def on_pre_template(template, template_name: str, config):
    if template_name == "404.html":
        # A 404 has no twin: the switcher offers each language's home page, the
        # plugin's initial alternates. (The plugin sets the attribute, which
        # Jinja reads, to the twins of the last page built.)
        config.extra.alternate = deepcopy(_i18n(config).extra_alternate)
    return template


def on_post_template(output: str, template_name: str, config) -> str:
    return _HEAD_ALTERNATE.sub("", output) if template_name == "404.html" else output


def on_post_build(config) -> None:
    """Runs once per language build, the default language first."""
    site = Path(config.site_dir)
    built = site / "404.html"
    if not built.exists():
        return
    locale = config.theme["language"]
    if locale == _default_locale(config):
        _default_404[str(site)] = built.read_text(encoding="utf-8")
        return
    (site / locale).mkdir(exist_ok=True)
    built.replace(site / locale / "404.html")
    if str(site) in _default_404:
        built.write_text(_default_404[str(site)], encoding="utf-8")
