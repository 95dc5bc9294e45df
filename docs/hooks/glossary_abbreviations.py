"""Tooltips for the site's abbreviations, made from the glossary of the page's language.

Every glossary row whose term is an abbreviation, written ``expansion (ABBR)``
(e.g. "DistributedDataParallel (DDP)"), becomes a Markdown abbreviation
definition (Python-Markdown's ``abbr`` extension) appended to each page of
that language: every "DDP" in the page's text is then shown with the
definition as its tooltip (Material's ``content.tooltips``). The glossary is
the one source; adding a row adds the tooltip everywhere. The tables are read
with markdown-it-py.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from markdown_it import MarkdownIt

from sitepages import language_of

_ABBREVIATED = re.compile(r"^(?P<expansion>.+?)\s*\((?P<abbr>[A-Z][A-Z0-9-]{1,})\)$")


def _cell_text(inline) -> str:
    """A table cell's text as a reader sees it: code spans and link texts kept, markup dropped."""
    return "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline")).strip()


def glossary_rows(glossary: Path) -> list[list[str]]:
    """The body rows of every table of a glossary page, as plain text cells."""
    tokens = MarkdownIt("commonmark").enable("table").parse(glossary.read_text(encoding="utf-8"))
    rows, row, in_body = [], None, False
    for token in tokens:
        if token.type in ("tbody_open", "tbody_close"):
            in_body = token.type == "tbody_open"
        elif token.type == "tr_open" and in_body:
            row = []
        elif token.type == "inline" and row is not None:
            row.append(_cell_text(token))
        elif token.type == "tr_close" and row is not None:
            rows.append(row)
            row = None
    return rows


@functools.cache
def abbreviations(glossary: Path, language: str) -> tuple[tuple[str, str], ...]:
    """(abbreviation, tooltip) for each abbreviated term of a glossary (English or Chinese)."""
    found = []
    for row in glossary_rows(glossary):
        english, chinese, definition = (row[0], row[1], row[2]) if language == "en" else (row[1], row[0], row[2])
        match = _ABBREVIATED.match(english)
        if match:
            expansion = match["expansion"]
            tooltip = f"{expansion}: {definition}" if language == "en" else f"{chinese}（{expansion}）：{definition}"
            found.append((match["abbr"], tooltip.replace("\n", " ")))
    return tuple(found)


def on_page_markdown(markdown: str, page, config, files) -> str:
    language = language_of(page.file.src_uri)
    glossary = Path(config.docs_dir) / language / "glossary.md"
    if not glossary.is_file():
        return markdown
    definitions = "".join(f"\n*[{abbr}]: {tooltip}" for abbr, tooltip in abbreviations(glossary, language))
    return markdown + "\n" + definitions + "\n" if definitions else markdown
