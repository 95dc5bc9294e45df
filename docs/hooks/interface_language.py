"""The interface strings that a Markdown extension and a plugin write in English, in the page's language.

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

tests/test_chinese_pages.py checks that no built Chinese page keeps them.
"""

from __future__ import annotations

import re

from sitepages import language_of
from sitepages.strings import strings

# mkdocs-jupyter's copy button on a notebook page: its label and the notice it shows.
_COPY_LABEL = re.compile(r'(<clipboard-copy\b[^>]*aria-label=")Copy to Clipboard(")')
_COPIED_NOTICE = re.compile(r'(<span class="notice"[^>]*>)Copied!(</span>)')


def on_env(env, config, files):
    """Templates get ``interface(group, key)``: the string in the language being built (docs/data/interface.yml)."""
    env.globals["interface"] = lambda group, key: strings(group, config.theme["language"])[key]
    return env


def on_page_markdown(markdown, page, config, files):
    words = strings("page_chrome", language_of(page.file.src_uri))
    config["mdx_configs"].setdefault("toc", {})["permalink_title"] = words["permalink_title"]
    return markdown


def on_page_content(html, page, config, files):
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    words = strings("page_chrome", language_of(page.file.src_uri))
    html = _COPY_LABEL.sub(lambda m: m[1] + words["copy_button"] + m[2], html)
    return _COPIED_NOTICE.sub(lambda m: m[1] + words["copied"] + m[2], html)
