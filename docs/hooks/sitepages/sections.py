"""The sections of a page: its headings, with the anchors the built site gives them, and the section a block sits in.

A Markdown page's headings get their ids from Python-Markdown's toc with the
site's slugify (mkdocs.yml), or from an explicit ``{ #id }``; a notebook's from
docs/hooks/notebook_heading_ids.py, which uses the same slugify. Headings inside
fences are not headings. Used where the site links to the section of a block
(the "Torch versions" page) and by the question bank (docs/hooks/question_bank.py).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import markdown
from pymdownx.slugs import slugify

from .blocks import Block
from .markdown_page import parse_page

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$")
# A heading's trailing attribute list that sets its id, { #id } (the only attributes the site's headings
# carry). Not any trailing {...}: an error entry's title may end with a dict the message prints.
HEADING_ID = re.compile(r"\s*\{:?\s*#[^{}]*\}\s*$")


@dataclass(frozen=True)
class Section:
    level: int  # 1 for the page's title
    anchor: str  # the heading's id on the built page
    title: str  # the heading's Markdown, without its { #id } attributes
    line: int  # Markdown: the heading's line (1-based); notebook: the number of the cell that holds it


def _anchors(headings: list[str]) -> list[str]:
    """The ids Python-Markdown's toc gives these headings (with the site's slugify), in order."""
    converter = markdown.Markdown(extensions=["attr_list", "toc"],
                                  extension_configs={"toc": {"slugify": slugify(case="lower")}})
    converter.convert("\n\n".join(headings))
    flat: list[str] = []

    def walk(tokens):  # pre-order is document order
        for token in tokens:
            flat.append(token["id"])
            walk(token["children"])

    walk(converter.toc_tokens)
    return flat


@functools.cache
def sections(page: Path) -> tuple[Section, ...]:
    """The headings of a Markdown page or a notebook, in order."""
    if page.suffix == ".ipynb":
        return _notebook_sections(page)
    text = page.read_text(encoding="utf-8").splitlines()
    in_fence = set()
    for block in parse_page(page):
        in_fence.update(range(block.line, block.end + 1))
        for shown in (block.output, block.warnings):
            if shown and shown.line:
                in_fence.update(range(shown.line, shown.end + 1))
    found = [(number, line) for number, line in enumerate(text, 1) if number not in in_fence and _HEADING.match(line)]
    anchors = _anchors([line for _, line in found])
    return tuple(Section(len(_HEADING.match(line)[1]), anchor, HEADING_ID.sub("", _HEADING.match(line)[2]), number)
                 for (number, line), anchor in zip(found, anchors, strict=True))


def _notebook_sections(page: Path) -> tuple[Section, ...]:
    """A notebook's headings, with the ids docs/hooks/notebook_heading_ids.py gives them."""
    slug = slugify(case="lower")
    used: dict[str, int] = {}
    found = []
    cells = json.loads(page.read_text(encoding="utf-8"))["cells"]
    for number, cell in enumerate(cells, 1):
        if cell["cell_type"] != "markdown":
            continue
        in_code = False
        for line in "".join(cell["source"]).splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                in_code = not in_code
            heading = None if in_code else _HEADING.match(line)
            if heading is None:
                continue
            title = HEADING_ID.sub("", heading[2])
            plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).replace("`", "").replace("*", "")
            base = slug(plain, "-") or "section"
            count = used.get(base, 0)
            used[base] = count + 1
            found.append(Section(len(heading[1]), base if count == 0 else f"{base}_{count}", title, number))
    return tuple(found)


def section_of(page: Path, block: Block) -> Section | None:
    """The section a block sits in: the last heading below the page's title before it (None: before any)."""
    where = block.cell if block.cell is not None else block.line
    before = [section for section in sections(page) if section.level > 1 and section.line < where]
    return before[-1] if before else None


def plain_title(title: str) -> str:
    """A heading's Markdown with its links' text in place of the links (it goes inside a link of its own)."""
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
