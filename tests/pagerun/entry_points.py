"""Where a reader starts reading a page: its short answer, and the first block of each section.

A reader lands on a page from search and copies the short answer, or lands on
a section from the table of contents, the question bank or the troubleshooting
page and copies that section's first block. Each of those blocks must either
run alone in a fresh interpreter or, for a section, say in one line which
earlier block it builds on (tests/test_entry_points.py checks both). This
module finds them in a Markdown page:

- the short answer: the ``!!! short-answer "…"`` admonition (``???`` too), the
  blocks indented under it;
- a section: a ``##`` heading (as sitepages.sections finds it) and the lines up to the next one; its first
  executed block; and whether a paragraph marked ``{ .builds-on }`` with a
  link comes before that block.

Python-Markdown's own parser would tell the short answer and the builds-on
marks apart, but it keeps no line numbers, and messages must name the page's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sitepages import Block, parse_page
from sitepages.sections import sections as page_sections

_FENCE = re.compile(r"^ *(`{3,}|~{3,})")
_SHORT_ANSWER = re.compile(r"^(?P<indent> *)(?:!!!|\?\?\?\+?) +short-answer\b")
_BUILDS_ON = re.compile(r"^ *\{:? *\.builds-on *\} *$")
_LINK = re.compile(r"\]\([^)]+\)")


@dataclass
class Section:
    title: str
    line: int  # the heading's line, 1-based
    first: Block | None  # its first executed block
    builds_on_line: int | None  # the `{ .builds-on }` line before that block, if any
    builds_on_has_link: bool


def _outside_fences(lines: list[str]) -> list[bool]:
    """For each line, whether it is prose (not inside or on a fence)."""
    prose, closing = [], None
    for line in lines:
        match = _FENCE.match(line)
        if closing is None:
            if match:
                closing = match.group(1)
                prose.append(False)
                continue
            prose.append(True)
        else:
            prose.append(False)
            if match and match.group(1).startswith(closing) and not line.strip()[len(match.group(1)):]:
                closing = None
    return prose


def short_answer(path: Path, blocks: list[Block] | None = None) -> tuple[int | None, list[Block]]:
    """The line of the page's first short-answer admonition (None if it has none) and its executed blocks."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    prose = _outside_fences(lines)
    blocks = parse_page(path) if blocks is None else blocks
    for number, line in enumerate(lines, start=1):
        match = _SHORT_ANSWER.match(line)
        if not (match and prose[number - 1]):
            continue
        indent, end = len(match.group("indent")), len(lines)
        for after in range(number, len(lines)):
            text = lines[after]
            if text.strip() and prose[after] and len(text) - len(text.lstrip(" ")) <= indent:
                end = after  # the first line back at the admonition's own indentation ends it
                break
        inside = [block for block in blocks if block.executed and number < block.line <= end]
        return number, inside
    return None, []


def sections(path: Path, blocks: list[Block] | None = None) -> list[Section]:
    """The page's ``##`` sections, in order, each with its first executed block and its builds-on line."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    prose = _outside_fences(lines)
    blocks = [block for block in (parse_page(path) if blocks is None else blocks) if block.executed]
    starts = [(section.line, section.title) for section in page_sections(path) if section.level == 2]
    found = []
    for index, (start, title) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(lines) + 1
        first = next((block for block in blocks if start < block.line < end), None)
        builds_on, has_link = None, False
        if first is not None:
            for number in range(start + 1, first.line):
                if prose[number - 1] and _BUILDS_ON.match(lines[number - 1]):
                    builds_on = number
                    paragraph = []  # the paragraph the marker closes: the lines above it up to a blank one
                    for above in range(number - 2, start - 1, -1):
                        if not lines[above].strip():
                            break
                        paragraph.append(lines[above])
                    has_link = bool(_LINK.search(" ".join(paragraph)))
        found.append(Section(title, start, first, builds_on, has_link))
    return found
