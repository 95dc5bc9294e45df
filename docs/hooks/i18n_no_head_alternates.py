"""No <link rel="alternate" hreflang> in the page head, as a MkDocs hook (see mkdocs.yml).

mkdocs-static-i18n puts one per language into every page's head, and
Material's JavaScript fetches "sitemap.xml" relative to each such link (e.g.
/zh/leaf-nodes/sitemap.xml), which does not exist: two 404s and two console
errors on every page. (Zensical, Material's successor, fetches the same way:
zensical/zensical#908.) The switcher's own links already point at the page's
twin, and the hreflang alternates stay in /sitemap.xml, where search engines
read them. tests/browser records every failed request of every page.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

_HEAD_ALTERNATE = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">\n?')


def without_head_alternates(html: str) -> str:
    """The page without the hreflang links of its <head> (the body is not scanned: it is most of the page)."""
    end = html.find("</head>")
    return _HEAD_ALTERNATE.sub("", html[:end]) + html[end:] if end >= 0 else html


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    return without_head_alternates(output)


def on_post_template(output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
    return without_head_alternates(output_content) if template_name == "404.html" else output_content
