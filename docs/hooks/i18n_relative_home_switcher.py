"""A relative language switcher on the home pages, as a MkDocs hook (see mkdocs.yml).

mkdocs-static-i18n links each home page's switcher to the homes as
root-absolute paths, from site_url's path ("/intermediate-gradients/zh/"), or
from "/" without one ("/zh/"). A build without SITE_URL served under a
sub-path (https://org.github.io/repo/) then sends the reader out of the site
(ultrabug/mkdocs-static-i18n#320), and so does any copy of a site served
elsewhere than site_url says. Here they become the twin's site-relative URL,
which Material's ``url`` filter makes relative to the page, as it does on
every other page. (A 404 page, served at any depth, keeps links absolute from
site_url's path: nothing relative could work there; see
i18n_404_per_language.py.)
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext


@event_priority(-200)  # after the plugin's on_page_context (50) has set the page's alternates
def on_page_context(context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation) -> TemplateContext:
    # The plugin sets them as an attribute of config.extra (what Material's template
    # reads), not as its item.
    for alternate in getattr(config.extra, "alternate", None) or []:
        twin = page.file.alternates.get(alternate["lang"]) if hasattr(page.file, "alternates") else None
        if alternate["link"].startswith("/") and twin is not None:
            alternate["link"] = twin.url or "./"
    return context
