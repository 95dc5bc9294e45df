"""How long verifying every code block of the site takes, next to a bare `import torch`.

One command, from the repository root:

    python tests/tools/benchmarks/verification_loop.py [--suite]

It runs, in one fresh process, every executed block of every page and
notebook of both languages with tests/page_runner.run_page (one namespace per
page, no interpreter start per block) and checks each block's output against
the page. It times that process from start to exit, and a bare
`python -c "import torch"` (median of 3) in the same run, before and after,
and prints both and their ratio (target: at most 3x). With --suite it also
times the whole test suite, `python -m pytest -q -p no:cacheprovider`
and prints its slowest tests
(target: under 90 s on 2 cores, site build and browser tests included).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

from _common import ENV, ROOT, import_torch_seconds, load_averages


def inner() -> None:
    """The loop itself, in this process: print one JSON line of results."""
    os.chdir(ROOT)
    from docs_pages import notebooks, pages
    from page_runner import run_page

    sources = pages() + notebooks()
    per_page, blocks, problems = {}, 0, []
    for source in sources:
        start = time.perf_counter()
        runs = run_page(source)
        per_page[str(source)] = time.perf_counter() - start
        blocks += len(runs)
        for run in runs:
            problems += run.complaints
            if run.stdout != run.expected and not run.error:
                problems.append(f"{run.fence.where}: output differs from the page")
    print(json.dumps({"pages": len(sources), "blocks": blocks, "problems": problems, "per_page": per_page}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", action="store_true", help="also time the whole pytest suite")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        inner()
        return

    print(f"load average at start: {load_averages()}")
    torch_before = import_torch_seconds()
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, __file__, "--inner"], cwd=ROOT, env=ENV, capture_output=True, text=True,
    )
    loop = time.perf_counter() - start
    torch_after = import_torch_seconds()
    if result.returncode != 0:
        raise SystemExit(f"the verification loop failed:\n{result.stdout}{result.stderr}")
    report = json.loads(result.stdout.strip().splitlines()[-1])
    bare = statistics.median([torch_before, torch_after])

    slowest = sorted(report["per_page"].items(), key=lambda item: -item[1])[:5]
    print(f"pages and notebooks: {report['pages']}, executed blocks: {report['blocks']}, "
          f"problems: {len(report['problems'])}")
    for problem in report["problems"][:10]:
        print("  " + problem.splitlines()[0])
    print("slowest pages: " + ", ".join(f"{page} {seconds:.2f} s" for page, seconds in slowest))
    print(f'python -c "import torch": {torch_before:.2f} s before, {torch_after:.2f} s after (median of 3 each)')
    pages_total = sum(report["per_page"].values())
    print(f"verification loop (one process, start to exit): {loop:.2f} s = running the pages {pages_total:.2f} s "
          f"+ interpreter start and imports {loop - pages_total:.2f} s")
    print(f"ratio: {loop / bare:.2f}x a bare import torch (target: at most 3x)")

    if args.suite:
        seconds = _suite()
        print(f"whole suite (python -m pytest -q): {seconds:.1f} s (target: under 90 s on 2 cores)")
    print(f"load average at end: {load_averages()}")


def _suite() -> float:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=12"],
        cwd=ROOT, env=ENV, capture_output=True, text=True,
    )
    seconds = time.perf_counter() - start
    lines = result.stdout.strip().splitlines() or ["(no output)"]
    slowest = False
    for line in lines:
        if "slowest" in line and "durations" in line:
            slowest = True
            print("  " + line)
        elif slowest and re.match(r"\d+\.\d+s ", line):
            print("    " + line[:160])
        elif line.startswith(("FAILED", "ERROR")):
            print("  " + line[:200])
    print("suite: " + lines[-1])
    return seconds


if __name__ == "__main__":
    main()
