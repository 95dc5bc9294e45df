"""Write new expected outputs into a page or notebook, in place.

Used by ``pytest --update-outputs`` with the outputs a real run printed. A
block that prints nothing loses its output block; one that starts printing
gets a new one, titled in the page's language; a notebook is written back in
canonical form (see ``notebook``).
"""

from __future__ import annotations

import json
from pathlib import Path

from .blocks import Block
from .layout import language_of
from .notebook import canonical, dumps
from .strings import strings

MARKER = "<!--pytest-codeblocks:expected-output-->"


def _output_lines(text: str, indent: str, info: str) -> list[str]:
    fence = "````" if "```" in text else "```"
    body = [indent + line if line else "" for line in text.splitlines()]
    return [indent + fence + info, *body, indent + fence]


def rewrite_outputs(path: Path, printed: list[tuple[Block, str]]) -> int:
    """Make each block's expected output what it printed; return how many changed.

    ``printed`` pairs blocks of ``path`` (as parsed from it now) with their new output.
    """
    path = Path(path)
    changed = [(block, text) for block, text in printed if text != block.expected]
    bad = [block.where for block, text in changed if text and not text.endswith("\n")]
    if bad:
        raise ValueError(f"{', '.join(bad)}: the output does not end with a newline; a fence cannot show that")
    if path.suffix == ".ipynb":
        original = path.read_text(encoding="utf-8")
        outputs = {block.cell: text for block, text in printed}
        text = dumps(canonical(json.loads(original), outputs))
        if text != original:
            path.write_text(text, encoding="utf-8")
        return len(changed)

    lines = path.read_text(encoding="utf-8").splitlines()
    info = f'text title="{strings("outputs", language_of(path))["title"]}"'
    # Edit from the bottom up so earlier line numbers stay valid.
    for block, text in sorted(changed, key=lambda pair: -pair[0].line):
        output, indent = block.output, " " * block.indent
        if output is None:
            lines[block.end:block.end] = ["", indent + MARKER, *_output_lines(text, indent, info)]
        elif not text:
            # Drop the marker, the output fence and the blank line before the marker.
            first = output.marker_line - 1
            if first > 0 and not lines[first - 1].strip():
                first -= 1
            del lines[first:output.end]
        else:
            lines[output.line - 1:output.end] = _output_lines(text, indent, output.info or info)
    if changed:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(changed)
