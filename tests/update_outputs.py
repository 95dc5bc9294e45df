"""Rewrite every expected-output block in docs/ from a real run, in both languages.

Upgrading torch is: install the new version, run this, review `git diff docs/`.

    python tests/update_outputs.py              # every page
    python tests/update_outputs.py docs/en/x.md # some pages

A block that prints nothing loses its output block; one that starts printing
gets a new one. A page whose block raises or breaks the runner's rules is left
untouched and reported, and the command exits non-zero.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from docs_pages import ROOT, pages
from page_runner import run_page

OUTPUT_TITLES = {"en": "Output", "zh": "输出"}
MARKER = "<!--pytest-codeblocks:expected-output-->"


def _output_lines(text: str, indent: str, info: str) -> list[str]:
    fence = "````" if "```" in text else "```"
    body = [indent + line if line else "" for line in text.splitlines()]
    return [indent + fence + info, *body, indent + fence]


def rewrite(page: Path) -> tuple[int, list[str]]:
    """Rewrite one page in place; return (blocks changed, problems)."""
    runs = run_page(page)
    problems = [complaint for run in runs for complaint in run.complaints]
    if problems:
        return 0, problems
    if any(not run.stdout.endswith("\n") for run in runs if run.stdout):
        return 0, [f"{page}: a block's output does not end with a newline; a fence cannot show that"]

    lines = page.read_text(encoding="utf-8").splitlines()
    info = f'text title="{OUTPUT_TITLES[page.parts[1]]}"'
    changed = 0
    # Edit from the bottom up so earlier line numbers stay valid.
    for run in reversed(runs):
        if run.stdout == run.expected:
            continue
        changed += 1
        fence, output = run.fence, run.fence.output
        indent = " " * fence.indent
        if output is None:
            new = ["", indent + MARKER, *_output_lines(run.stdout, indent, info)]
            lines[fence.end:fence.end] = new
        elif not run.stdout:
            # Drop the marker, the output fence and the blank line before the marker.
            first = output.marker_line - 1
            if first > 0 and not lines[first - 1].strip():
                first -= 1
            del lines[first:output.end]
        else:
            kept_info = output.info or info
            lines[output.start - 1:output.end] = _output_lines(run.stdout, indent, kept_info)
    if changed:
        page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed, []


def main(arguments: list[str]) -> int:
    targets = [Path(a).resolve().relative_to(ROOT) for a in arguments] or pages()
    os.chdir(ROOT)  # pages run, and report, with paths relative to the repository root
    failed = False
    for page in targets:
        changed, problems = rewrite(page)
        if problems:
            failed = True
            print(f"{page}: NOT rewritten", *problems, sep="\n  ", file=sys.stderr)
        else:
            print(f"{page}: {changed} output block(s) rewritten")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
