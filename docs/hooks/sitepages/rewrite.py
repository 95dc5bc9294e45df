"""Write new expected outputs into a page or notebook, in place.

Used by ``pytest --update-outputs`` with the outputs and warnings a real run
produced. A block that prints nothing loses its output block; one that starts
printing gets a new one, titled in the page's language; likewise its warnings
block (after the output, marked ``<!--pagerun:expected-warnings-->``); a
notebook is written back in canonical form (see ``notebook``), its warnings as
the cell's stderr stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .blocks import Block, Output
from .layout import language_of
from .notebook import canonical, dumps
from .strings import strings

MARKER = "<!--pytest-codeblocks:expected-output-->"
WARNINGS_MARKER = "<!--pagerun:expected-warnings-->"


@dataclass(frozen=True)
class Produced:
    """What one block produced in a real run: its printed output and the warnings it showed."""

    block: Block
    printed: str
    warned: str = ""


def _fence(text: str, indent: str, info: str) -> list[str]:
    fence = "````" if "```" in text else "```"
    body = [indent + line if line else "" for line in text.splitlines()]
    return [indent + fence + info, *body, indent + fence]


def _replace(lines: list[str], shown: Output | None, text: str, after: int, marker: str, indent: str,
             info: str) -> None:
    """Make the fence ``shown`` (or a new one inserted after line ``after``) hold ``text``; drop it if empty."""
    if shown is None:
        if text:
            lines[after:after] = ["", indent + marker, *_fence(text, indent, info)]
    elif not text:
        # Drop the marker, the fence and the blank line before the marker.
        first = shown.marker_line - 1
        if first > 0 and not lines[first - 1].strip():
            first -= 1
        del lines[first:shown.end]
    else:
        lines[shown.line - 1:shown.end] = _fence(text, indent, shown.info or info)


def rewrite_outputs(path: Path, produced: list[Produced]) -> int:
    """Make each block's expected output and warnings what it produced; return how many blocks changed.

    ``produced`` holds blocks of ``path`` (as parsed from it now) with what they produced.
    """
    path = Path(path)
    changed = [p for p in produced if (p.printed, p.warned) != (p.block.expected, p.block.expected_warnings)]
    bad = [p.block.where for p in changed if any(t and not t.endswith("\n") for t in (p.printed, p.warned))]
    if bad:
        raise ValueError(f"{', '.join(bad)}: the output does not end with a newline; a fence cannot show that")
    if path.suffix == ".ipynb":
        original = path.read_text(encoding="utf-8")
        outputs = {p.block.cell: (p.printed, p.warned) for p in produced}
        text = dumps(canonical(json.loads(original), outputs))
        if text != original:
            path.write_text(text, encoding="utf-8")
        return len(changed)

    lines = path.read_text(encoding="utf-8").splitlines()
    titles = strings("outputs", language_of(path))
    output_info, warnings_info = f'text title="{titles["title"]}"', f'text title="{titles["warnings"]}"'
    # Edit from the bottom up so earlier line numbers stay valid; in a block, the warnings (lower) first.
    for p in sorted(changed, key=lambda p: -p.block.line):
        block, indent = p.block, " " * p.block.indent
        output_end = block.output.end if block.output else block.end
        _replace(lines, block.warnings, p.warned, output_end, WARNINGS_MARKER, indent, warnings_info)
        _replace(lines, block.output, p.printed, block.end, MARKER, indent, output_info)
    if changed:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(changed)
