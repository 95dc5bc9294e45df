"""How long verifying the site takes, next to a bare `import torch`, measured side by side in one run.

One command, from the repository root:

    python tests/tools/benchmarks/verification_loop.py [--suite]

It times, as subprocesses started from this one:

* a bare `python -c "import torch"` (median of 3, before and after the rest);
* `pytest docs`: every block of every page and notebook of both languages,
  each page one session (target: at most 4x the bare import);
* with --suite, the whole default `pytest`: the docs, the portability pass,
  the site build and the browser tests (target: at most 45x the bare import,
  about 80 s on 2 cores).

and prints each time and its ratio to the import, and the load averages,
since other processes on the machine skew every timing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from tests.tools.benchmarks.common import ENV, ROOT, import_torch_seconds, load_averages


def timed_pytest(*arguments: str) -> tuple[float, str]:
    """Seconds a pytest run takes, start to exit, and its last line; it must pass."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments],
        cwd=ROOT, env=ENV, capture_output=True, text=True,
    )
    seconds = time.perf_counter() - start
    lines = result.stdout.strip().splitlines() or ["(no output)"]
    if result.returncode != 0:
        failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
        raise SystemExit(f"pytest {' '.join(arguments)} failed:\n" + "\n".join(failed[:20] or lines[-20:]))
    return seconds, lines[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", action="store_true", help="also time the whole default pytest")
    args = parser.parse_args()

    print(f"load average at start: {load_averages()}")
    before = import_torch_seconds()
    docs, docs_summary = timed_pytest("docs")
    suite = suite_summary = None
    if args.suite:
        suite, suite_summary = timed_pytest("--durations=15")
    after = import_torch_seconds()
    bare = statistics.median([before, after])

    print(f'python -c "import torch": {before:.2f} s before, {after:.2f} s after (median of 3 each)')
    print(f"pytest docs: {docs:.1f} s ({docs_summary}) = {docs / bare:.2f}x the import (target: at most 4x)")
    if suite is not None:
        print(f"pytest (whole suite): {suite:.1f} s ({suite_summary}) = {suite / bare:.1f}x the import "
              f"(target: at most 45x)")
    print(f"load average at end: {load_averages()}")


if __name__ == "__main__":
    main()
