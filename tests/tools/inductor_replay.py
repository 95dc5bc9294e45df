"""Replay a page that compiles with `aot_eager` under inductor, and compare every block's output.

The compile-and-checkpoint page runs `torch.compile` with `backend="aot_eager"`
(no C++ compiler needed) and says that its results are the same under the
default backend, inductor. This script is how that was checked: it runs the
page's blocks in order, in one session, with `lookup_backend("aot_eager")`
replaced by `lookup_backend("inductor")`, and prints, for each block, whether
it printed exactly the output shown on the page. Inductor needs a C++ compiler
(gcc or clang) and is slow: about half a minute on 2 cores.

    python -m tests.tools inductor_replay [docs/en/training/compile-and-checkpoint.md]

The blocks run in the suite's engine (tests.pagerun.execute), as ``pytest PAGE``
runs them. Exit status 1 if any block printed something else.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from sitepages import parse
from tests.pagerun.execute import execute

PAGE = Path("docs/en/training/compile-and-checkpoint.md")
AOT_EAGER = 'lookup_backend("aot_eager")'
INDUCTOR = 'lookup_backend("inductor")'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", nargs="?", type=Path, default=PAGE, help=f"the page to replay (default: {PAGE})")
    page = parser.parse_args().page
    blocks = [block for block in parse(page) if block.executed]
    if not any(AOT_EAGER in block.code for block in blocks):
        print(f"{page} never looks up aot_eager: nothing to replay under inductor")
        return 1
    swapped = [dataclasses.replace(block, code=block.code.replace(AOT_EAGER, INDUCTOR)) for block in blocks]
    runs = execute(swapped)  # the suite's engine, as `pytest PAGE` runs the page
    differ = len(blocks) - len(runs)
    for run in runs:
        same = run.output_matches and not run.traceback
        differ += not same
        print(f"{run.block.where}: {'same' if same else 'DIFFERS'}")
        if not same:
            print(run.traceback or run.output_diff().replace("printed by the block", "printed under inductor"))
        for rule in dict.fromkeys(run.broken_rules):  # e.g. warnings inductor's own modules emit when loaded
            print(f"  (also: {rule})")
    print(f"{differ} of {len(blocks)} block(s) did something else under inductor")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
