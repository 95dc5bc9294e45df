"""Tooltips for the site's abbreviations, made from the glossary of the page's language.

Every glossary row whose term is an abbreviation, written ``expansion (ABBR)``
(e.g. "DistributedDataParallel (DDP)"), becomes a Markdown abbreviation
definition (Python-Markdown's ``abbr`` extension) appended to each page of
that language: every "DDP" in the page's text is then shown with the
definition as its tooltip (Material's ``content.tooltips``). The glossary is
the one source; adding a row adds the tooltip everywhere. The tables are read
with ``sitepages.tables`` (markdown-it-py).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from sitepages import language_of
from sitepages.tables import page_tables

_ABBREVIATED = re.compile(r"^(?P<expansion>.+?)\s*\((?P<abbr>[A-Z][A-Z0-9-]{1,})\)$")


def glossary_rows(glossary: Path) -> list[list[str]]:
    """The body rows of every table of a glossary page, as the text a reader sees in each cell."""
    return [[cell.text for cell in row.cells] for table in page_tables(glossary) for row in table.rows]


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


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    language = language_of(page.file.src_uri)
    glossary = Path(config.docs_dir) / language / "glossary.md"
    if not glossary.is_file():
        return markdown
    definitions = "".join(f"\n*[{abbr}]: {tooltip}" for abbr, tooltip in abbreviations(glossary, language))
    return markdown + "\n" + definitions + "\n" if definitions else markdown
