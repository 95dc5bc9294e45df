"""Rewrite every expected-output block in docs/ from a real run, in both languages.

Upgrading torch is: install the new version, run this, review `git diff docs/`.

    python tests/update_outputs.py              # every page and notebook
    python tests/update_outputs.py docs/en/x.md # some pages
    python tests/update_outputs.py docs/en/notebooks/x.ipynb docs/zh/notebooks/x.ipynb

A notebook's stored cell outputs are rewritten the same way, and the whole
notebook is written back in canonical form (no execution counts, ids or
kernel metadata that change from run to run; see notebook_cells.py).

A block that prints nothing loses its output block; one that starts printing
gets a new one. A page whose block raises or breaks the runner's rules is left
untouched and reported, and the command exits non-zero.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from docs_pages import ROOT, notebooks, pages
from notebook_cells import canonical, dumps
from page_runner import run_page

OUTPUT_TITLES = {"en": "Output", "zh": "输出"}
MARKER = "<!--pytest-codeblocks:expected-output-->"


def _output_lines(text: str, indent: str, info: str) -> list[str]:
    fence = "````" if "```" in text else "```"
    body = [indent + line if line else "" for line in text.splitlines()]
    return [indent + fence + info, *body, indent + fence]


def rewrite(page: Path) -> tuple[int, list[str]]:
    """Rewrite one page or notebook in place; return (blocks changed, problems)."""
    runs = run_page(page)
    problems = [complaint for run in runs for complaint in run.complaints]
    if problems:
        return 0, problems
    if any(not run.stdout.endswith("\n") for run in runs if run.stdout):
        return 0, [f"{page}: a block's output does not end with a newline; a fence cannot show that"]
    if page.suffix == ".ipynb":
        return _rewrite_notebook(page, runs), []

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


def _rewrite_notebook(path: Path, runs) -> int:
    """Store each code cell's printed output; write the notebook back in canonical form."""
    original = path.read_text(encoding="utf-8")
    changed = sum(run.stdout != run.expected for run in runs)
    text = dumps(canonical(json.loads(original), {run.fence.start: run.stdout for run in runs}))
    if text != original:
        path.write_text(text, encoding="utf-8")
    return changed


def main(arguments: list[str]) -> int:
    targets = [Path(a).resolve().relative_to(ROOT) for a in arguments] or pages() + notebooks()
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
