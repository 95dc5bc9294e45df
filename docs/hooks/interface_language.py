"""The interface in the page's language: the templates' words, and what an extension and a plugin write in English.

Material translates its own interface through ``theme.language``, which
mkdocs-static-i18n sets for each language, but two strings on a page come
from elsewhere and stay English on a Chinese page:

* the tooltip of the ¶ link after every heading: the ``toc`` extension's
  ``permalink_title`` ("Permanent link"), one value in mkdocs.yml for every
  page, since the i18n plugin cannot override ``markdown_extensions`` per
  language. Each page sets it for its own language just before it is
  rendered, so the extension itself writes the title;
* the copy button of a notebook page's code cells, from mkdocs-jupyter's
  template: ``aria-label="Copy to Clipboard"`` and the "Copied!" notice its
  script shows. They are replaced in the rendered notebook.

The templates' own words (the 404 page, the report link, the footer) are
handed to them as data, ``config.extra.interface``: the ``templates`` group of
docs/data/interface.yml in the language being built, with ``{name}`` fields
the template fills with Jinja's ``replace`` filter. The templates call no
Python function, so a builder whose templates cannot (Zensical's MiniJinja)
would need only the same data.

tests/test_chinese_pages.py checks that no built Chinese page keeps them.
"""

from __future__ import annotations

import re

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from sitepages import language_of
from sitepages.strings import strings

# mkdocs-jupyter's copy button on a notebook page: its label and the notice it shows.
_COPY_LABEL = re.compile(r'(<clipboard-copy\b[^>]*aria-label=")Copy to Clipboard(")')
_COPIED_NOTICE = re.compile(r'(<span class="notice"[^>]*>)Copied!(</span>)')


def on_env(env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
    """Each build, once its language is set: the templates' words in that language (docs/data/interface.yml)."""
    config.extra["interface"] = strings("templates", config.theme["language"])
    return env


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    words = strings("page_chrome", language_of(page.file.src_uri))
    config["mdx_configs"].setdefault("toc", {})["permalink_title"] = words["permalink_title"]
    return markdown


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    words = strings("page_chrome", language_of(page.file.src_uri))
    html = _COPY_LABEL.sub(lambda m: m[1] + words["copy_button"] + m[2], html)
    return _COPIED_NOTICE.sub(lambda m: m[1] + words["copied"] + m[2], html)
