"""One 404 page per language: a fix for mkdocs-static-i18n issue #284, as a MkDocs hook (see mkdocs.yml).

https://github.com/ultrabug/mkdocs-static-i18n/issues/284: every language is
built into the same site directory, so each build overwrites /404.html and
the last language wins: the English 404 came out in Chinese. Here the
default language's 404 is kept at /404.html and every other one is moved to
/<locale>/404.html (the host serves each language's, tests/browser/harness.py
as a host would). A 404 has no twin: its language switcher offers each
language's home page.
"""

from __future__ import annotations

from copy import deepcopy
from pathlib import Path

from jinja2 import Template
from mkdocs.config.defaults import MkDocsConfig

from sitepages import DEFAULT_LANGUAGE

_default_404: dict[str, str] = {}


def on_pre_template(template: Template, *, template_name: str, config: MkDocsConfig) -> Template:
    if template_name == "404.html":
        # The plugin's initial alternates, the homes. (The plugin sets the attribute,
        # which Jinja reads, to the twins of the last page built.)
        config.extra.alternate = deepcopy(config.plugins["i18n"].extra_alternate)
    return template


def on_post_build(*, config: MkDocsConfig) -> None:
    """Runs once per language build, the default language first."""
    site = Path(config.site_dir)
    built = site / "404.html"
    if not built.exists():
        return
    locale = config.theme["language"]
    if locale == DEFAULT_LANGUAGE:
        _default_404[str(site)] = built.read_text(encoding="utf-8")
        return
    (site / locale).mkdir(exist_ok=True)
    built.replace(site / locale / "404.html")
    if str(site) in _default_404:
        built.write_text(_default_404[str(site)], encoding="utf-8")
