"""The Markdown tables of a page, read with markdown-it-py: the one table reader of the project.

The glossary hook reads the glossary's terms with it, and the suite reads the
glossary and the troubleshooting page's tables of messages with it. A cell
keeps its Markdown source, its text as a reader sees it, its code spans and
its links; escaped pipes and code spans holding ``|`` are the parser's
business, not a regular expression's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt


@dataclass(frozen=True)
class Cell:
    source: str  # the cell's Markdown, as written
    text: str  # what a reader sees: text and code spans, markup dropped
    code: tuple[str, ...]  # the contents of its code spans
    links: tuple[str, ...]  # the targets of its links


@dataclass(frozen=True)
class Row:
    line: int  # 1-based line of the row in the page
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Table:
    line: int  # 1-based line of the header row
    header: tuple[Cell, ...]
    rows: tuple[Row, ...]


def _cell(inline) -> Cell:
    children = inline.children or ()
    return Cell(
        source=inline.content.strip(),
        text="".join(child.content for child in children if child.type in ("text", "code_inline")).strip(),
        code=tuple(child.content for child in children if child.type == "code_inline"),
        links=tuple(child.attrs["href"] for child in children if child.type == "link_open"),
    )


@functools.cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def tables(text: str) -> list[Table]:
    """Every table of a Markdown text, in order."""
    found: list[Table] = []
    rows: list[Row] = []
    cells: list[Cell] = []
    table_line = row_line = 0
    in_cell = False
    for token in _parser().parse(text):
        if token.type == "table_open":
            rows, table_line = [], token.map[0] + 1
        elif token.type == "tr_open":
            cells, row_line = [], token.map[0] + 1
        elif token.type in ("th_open", "td_open", "th_close", "td_close"):
            in_cell = token.type.endswith("_open")
        elif token.type == "inline" and in_cell:
            cells.append(_cell(token))
        elif token.type == "tr_close":
            rows.append(Row(row_line, tuple(cells)))
        elif token.type == "table_close":
            found.append(Table(table_line, rows[0].cells, tuple(rows[1:])))
    return found


def page_tables(page: Path) -> list[Table]:
    return tables(Path(page).read_text(encoding="utf-8"))
