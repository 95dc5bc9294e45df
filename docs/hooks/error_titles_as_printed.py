"""An error entry's title shows its message as torch prints it (a MkDocs hook).

Each page of the error index (docs/LANGUAGE/errors/ID.md) is titled with its
message, copied from the output of its own example: tests/test_error_index.py
checks that the title is what the page prints. Markdown would read parts of
such a message as markup: ``<class 'list'>`` or ``<function SGD.step at 0x…>``
as an HTML tag (the browser hides it, and the search index swallowed the page's
first paragraph into the title), ``__main__`` as bold, backquotes as code. The
title line is escaped before Markdown reads it, so the heading, the browser's
tab and the search result all show the characters the reader pasted. The rest
of the page is written as Markdown and left alone.
"""

from __future__ import annotations

import html
import re
from pathlib import PurePosixPath

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from sitepages.sections import HEADING_ID

# What Python-Markdown (with this site's extensions) reads as markup in a heading, backslash-escaped
# (its own escapable characters, so no backslash shows); "<" and "&" become entities.
_MARKUP = re.compile(r"([\\`*_\[\]{}#])")


def literal(text: str) -> str:
    """``text`` as Markdown that renders to exactly ``text``."""
    return html.escape(_MARKUP.sub(r"\\\1", text), quote=False)


def is_entry(src_uri: str) -> bool:
    """docs/LANGUAGE/errors/ID.md, not the index of the folder."""
    parts = PurePosixPath(src_uri).parts
    return len(parts) == 3 and parts[1] == "errors" and parts[2] != "index.md"


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if not is_entry(page.file.src_uri) or not markdown.startswith("# "):
        return markdown
    title, newline, rest = markdown.partition("\n")
    # A trailing { #id } stays Markdown: it keeps the id a published link to the title points at.
    attributes = HEADING_ID.search(title)
    text = title[2 : attributes.start()] if attributes else title[2:]
    return "# " + literal(text) + (attributes.group(0) if attributes else "") + newline + rest
