"""A page as a runnable notebook: the prose as markdown cells, each executed block as a code cell.

There is no second copy to drift: the prose becomes markdown cells; each
executed block becomes a code cell, in order, its snippet includes expanded as
the site shows them, with the output the page shows (and the suite asserts)
stored as the cell's output; a block the page declares not run
(``<!--pytest.mark.skip(...)-->``) stays in the markdown as a fenced block with
its reason; output blocks and the suite's markers are left out. Material's
admonitions and content tabs become bold titles over their content.

A generated notebook's first code cell is one more: it prints the torch
version the reader runs and the one the page was verified with (the pin in
pyproject.toml); on Colab, or anywhere else, they may differ.

The notebook must hold exactly the code the suite runs and checks, so the page
is read with the parser the suite uses, and the notebook is written in the one
canonical form (``notebook``). The build writes one beside every page with code
(docs/hooks/page_notebooks.py); tests/test_page_notebooks.py checks them.
"""

from __future__ import annotations

import re
from pathlib import Path

from .layout import language_of
from .markdown_page import parse_page
from .notebook import code_cell, markdown_cell, new_notebook
from .pins import pinned
from .strings import strings


def version_cell(language: str) -> dict:
    """The generated notebook's first code cell: the torch it runs, and the one its outputs come from."""
    return code_cell(
        f"import torch\n\n{strings('page_notebooks', language)['version_comment']}\n"
        f'print("running torch", torch.__version__, "| outputs verified with torch {pinned("torch")}")'
    )


_CONTAINER = re.compile(
    r'^ *(?:(?:!!!|\?\?\?\+?) *(?P<kind>[\w-]+)(?: +"(?P<title>[^"]*)")?|=== +"(?P<tab>[^"]*)") *$'
)


class _Prose:
    """Turns the page's Markdown between code blocks into plain Markdown Jupyter renders.

    Material's admonitions (``!!! note "Title"``) and content tabs
    (``=== "Tab"``) become a bold title, and their indented content is
    dedented so that Jupyter does not show it as a code block.
    """

    def __init__(self) -> None:
        self.open: list[int] = []  # indentation of the containers we are inside

    def convert(self, lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            indent = len(line) - len(line.lstrip(" "))
            if line.strip():
                while self.open and indent <= self.open[-1]:
                    self.open.pop()
            text = line[min(indent, 4 * len(self.open)):] if line.strip() else ""
            container = _CONTAINER.match(line)
            if container:
                title = container["tab"] or container["title"] or container["kind"].capitalize()
                out += [f"**{title}**", ""]
                self.open.append(indent)
                continue
            out.append(text)
        return out


def notebook_name(src_uri: str) -> str:
    """The file name of a page's notebook: leaf-nodes.md -> leaf-nodes.ipynb, a/index.md -> a.ipynb."""
    path = Path(src_uri)
    if path.stem != "index":
        return f"{path.stem}.ipynb"
    return f"{path.parent.name}.ipynb" if len(path.parent.parts) > 1 else "index.ipynb"


def page_notebook(page: Path) -> dict | None:
    """The page as a notebook, or None when the page has no executed block."""
    blocks = parse_page(page)
    if not any(block.executed for block in blocks):
        return None
    language = language_of(page)
    lines = page.read_text(encoding="utf-8").splitlines()
    prose, cells, pending = _Prose(), [], []

    def flush() -> None:
        text = "\n".join(pending).strip("\n")
        if text:
            cells.append(markdown_cell(text))
        pending.clear()

    position = 1  # next line of the page not yet used
    if lines and lines[0] == "---":  # front matter (a search boost) is for MkDocs, not readers
        position = lines.index("---", 1) + 2
    for block in blocks:
        first = block.marker_line or block.line
        pending.extend(prose.convert(lines[position - 1 : first - 1]))
        position = block.end + 1
        if block.executed:
            flush()
            if not any(cell["cell_type"] == "code" for cell in cells):
                cells.append(version_cell(language))  # the first code cell, after the title and intro
            cells.append(code_cell(block.code, block.expected, block.expected_warnings))
        else:
            indent = " " * block.indent
            shown = [indent + block.fence + block.info, *(indent + line for line in block.source.splitlines()),
                     indent + block.fence]
            if block.skip_reason:
                not_run = strings("page_notebooks", language)["not_run"]
                shown.insert(0, indent + not_run.format(block.skip_reason) + "\n")
            pending.extend(prose.convert(shown))
        for shown in (block.output, block.warnings):  # stored as its code cell's outputs, not shown again
            if shown:
                pending.extend(prose.convert(lines[position - 1 : shown.marker_line - 1]))
                position = shown.end + 1
    pending.extend(prose.convert(lines[position - 1 :]))
    flush()
    return new_notebook(cells)
