"""Replay pages many times, each time in a fresh interpreter, and count the runs that fail: for rare hangs and crashes.

    python -m tests.tools repeat_pages docs/en/errors/ddp-grad-layout-contract.md       # 50 runs of the page
    python -m tests.tools repeat_pages --runs 100 --block 2 docs/en/PAGE.md            # its 2nd block alone
    python -m tests.tools repeat_pages --runs 20 $(grep -rl "DDP(" docs/en)             # every DDP page

The suite replays each page once, so a failure that shows in a few runs of a
hundred (a deadlock in a library's threads, a crash at exit) fails CI now and
then and never here. This tool replays each page, or one of its executed
blocks alone (``--block N``, counted from 1, as a reader who lands on that
section copies it), ``--runs`` times in fresh interpreters, with the
suite's fresh-interpreter server (tests.pagerun.fresh: a child forked per
run, killed after tests.pagerun.fresh_server.CHILD_TIMEOUT seconds), and
prints per page how many runs printed something other than the page shows,
and the first such failure. Exit 1 if any run failed.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from sitepages import parse_page
from tests.pagerun.fresh import Replay


def executed_blocks(page: Path, block: int | None) -> list:
    blocks = [b for b in parse_page(page) if b.executed]
    if block is None:
        return blocks
    if not 1 <= block <= len(blocks):
        raise SystemExit(f"repeat_pages: {page} has {len(blocks)} executed blocks; --block {block} is not one of them")
    return [blocks[block - 1]]


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools repeat_pages", description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="+", type=Path, help="Markdown pages under docs/")
    parser.add_argument("--runs", type=int, default=50, help="runs of each page (default 50)")
    parser.add_argument("--block", type=int, help="run only the page's Nth executed block (from 1), alone")
    options = parser.parse_args()
    if options.runs < 1:
        parser.error(f"--runs must be at least 1, not {options.runs}")
    for page in options.pages:
        if not page.is_file():
            parser.error(f"{page}: no such page")
    jobs = {f"{page}#{run}": executed_blocks(page, options.block)
            for page in options.pages for run in range(options.runs)}
    results = Replay(jobs).results(timeout=24 * 3600)
    failed, first = Counter(), {}
    for name, runs in results.items():
        messages = [message for run in runs for message in run.messages()]
        if messages:
            page = name.rsplit("#", 1)[0]
            failed[page] += 1
            first.setdefault(page, messages[0])
    what = f"block {options.block}" if options.block else "all blocks"
    for page in options.pages:
        print(f"{page} ({what}): {failed[str(page)]} of {options.runs} runs failed")
        if str(page) in first:
            print("    first failure: " + first[str(page)].replace("\n", "\n    "))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
