"""The site's pages and notebooks as data, for the MkDocs hooks and the test suite alike.

What pages exist, their language, twin and URL (``layout``); the code blocks
of a page or notebook and their expected outputs (``blocks``,
``markdown_page``, ``notebook``); and writing new outputs back into them
(``rewrite``). Also what the build adds to the pages, as data or Markdown
that a hook only has to put in place: a page as a notebook
(``page_notebook``), the version matrix and its notes (``torch_versions``,
``version_notes``), the question bank (``questions``), the interface strings
(``strings``). Nothing here imports torch, MkDocs or anything from
``tests/``: the site build needs only what ``pip install .`` installs, and
what is here would serve another builder unchanged.
"""

from __future__ import annotations

from pathlib import Path

from .blocks import Block, Output, PageFormatError, silently_skipped
from .layout import (
    DEFAULT_LANGUAGE,
    DOCS,
    LANGUAGES,
    ROOT,
    language_of,
    nav_pages,
    notebooks,
    page_id,
    page_url,
    pages,
    sources,
    twin,
)
from .markdown_page import parse_page
from .notebook import parse_notebook


def parse(path: Path) -> list[Block]:
    """The blocks of a Markdown page (its fences) or of a notebook (its code cells)."""
    return parse_notebook(path) if Path(path).suffix == ".ipynb" else parse_page(path)


__all__ = [
    "Block", "DEFAULT_LANGUAGE", "DOCS", "LANGUAGES", "Output", "PageFormatError", "ROOT", "language_of",
    "nav_pages", "notebooks", "page_id", "page_url", "pages", "parse", "parse_notebook", "parse_page",
    "silently_skipped", "sources", "twin",
]
