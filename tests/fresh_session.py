"""Replay one page in this brand-new interpreter, as a reader pasting its blocks would.

No state is reset between blocks and warning filters are Python's defaults.
Prints a JSON list of each block's stdout (or its traceback) on the real stdout.
Usage: python tests/fresh_session.py docs/en/page.md
"""

import contextlib
import io
import json
import sys
import traceback
from pathlib import Path

from markdown_fences import parse_page

page = Path(sys.argv[1])
namespace = {"__name__": "__main__"}
results = []
for fence in parse_page(page):
    if not fence.executed:
        continue
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        try:
            exec(fence.compiled(), namespace)
        except BaseException:  # noqa: BLE001 - the parent reports it
            results.append({"line": fence.start, "stdout": captured.getvalue(), "error": traceback.format_exc()})
            break
    results.append({"line": fence.start, "stdout": captured.getvalue(), "error": None})
json.dump(results, sys.__stdout__)
