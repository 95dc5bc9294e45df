"""Replay a page that compiles with `aot_eager` under inductor, and compare every block's output.

The compile-and-checkpoint page runs `torch.compile` with `backend="aot_eager"`
(no C++ compiler needed) and says that its results are the same under the
default backend, inductor. This script is how that was checked: it runs the
page's blocks in order, in one namespace, with `lookup_backend("aot_eager")`
replaced by `lookup_backend("inductor")`, and prints, for each block, whether
it printed exactly the output shown on the page. Inductor needs a C++ compiler
(gcc or clang) and is slow: about half a minute on 2 cores.

    python -m tests.tools inductor_replay [docs/en/training/compile-and-checkpoint.md]

(on a checkout without the tools runner: ``PYTHONPATH=docs/hooks python
tests/tools/inductor_replay.py``). Exit status 1 if any block printed
something else.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import sys
from pathlib import Path

from sitepages import parse

PAGE = Path("docs/en/training/compile-and-checkpoint.md")
AOT_EAGER = 'lookup_backend("aot_eager")'
INDUCTOR = 'lookup_backend("inductor")'


def _executed(block) -> bool:
    # Block.executed in the current page model; Block.runs before it was renamed
    return block.executed if hasattr(block, "executed") else block.runs


def main() -> int:
    page = Path(sys.argv[1]) if len(sys.argv) > 1 else PAGE
    namespace = {"__name__": "__main__"}
    swapped = differ = 0
    for block in parse(page):
        if not _executed(block):
            continue
        swapped += block.code.count(AOT_EAGER)
        code = block.code.replace(AOT_EAGER, INDUCTOR)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, block.where, "exec"), namespace)
        if printed.getvalue() == block.expected:
            print(f"{block.where}: same")
        else:
            differ += 1
            print(f"{block.where}: DIFFERS")
            print("".join(difflib.unified_diff(block.expected.splitlines(True),
                                               printed.getvalue().splitlines(True),
                                               "shown on the page", "printed under inductor")))
    if not swapped:
        print(f"{page} never looks up aot_eager: nothing was replayed under inductor")
        return 1
    print(f"{differ} block(s) printed something else under inductor")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
