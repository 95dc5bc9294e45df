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

PERMALINK_TITLE = {"en": "Permanent link", "zh": "本节链接"}
# The copy button's label and notice on a notebook page, by language (English is mkdocs-jupyter's).
COPY_BUTTON = {"zh": ("复制到剪贴板", "已复制")}
_COPY_LABEL = re.compile(r'(<clipboard-copy\b[^>]*aria-label=")Copy to Clipboard(")')
_COPIED_NOTICE = re.compile(r'(<span class="notice"[^>]*>)Copied!(</span>)')


def on_page_markdown(markdown, page, config, files):
    language = language_of(page.file.src_uri)
    config["mdx_configs"].setdefault("toc", {})["permalink_title"] = PERMALINK_TITLE.get(
        language, PERMALINK_TITLE["en"]
    )
    return markdown


def on_page_content(html, page, config, files):
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    words = COPY_BUTTON.get(language_of(page.file.src_uri))
    if words is None:
        return html
    label, copied = words
    html = _COPY_LABEL.sub(lambda m: m[1] + label + m[2], html)
    return _COPIED_NOTICE.sub(lambda m: m[1] + copied + m[2], html)
