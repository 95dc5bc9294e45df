"""How long verifying and building the site take, as ratios to a bare `import torch`, measured in one run.

    python -m tests.tools benchmarks.verification_loop [--suite] [--repeats 3]

It times, as subprocesses started from this one, round after round (so that a
noisy moment hits every measure alike):

* a bare `python -c "import torch"`;
* `mkdocs build --strict` (target: at most 4x the import);
* `pytest docs`: every block of every page and notebook of both languages,
  each page one session (target: at most 6x the import);
* with --suite, the whole default `pytest`: the docs, the portability pass,
  the site builds and the browser tests (target: at most 60x the import).

and prints the median of each, its ratio to the import's median, and the load
averages, since other processes on the machine skew every timing. Every pytest
run must pass. Nothing here is a test: the suite never times anything.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from tests.tools.benchmarks.common import build_site, load_averages, measured_on, timed_pytest, wall

TARGETS = {"mkdocs build --strict": 4, "pytest docs": 6, "pytest (whole suite)": 60}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", action="store_true", help="also time the whole default pytest")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of measures (default 3); medians are shown")
    args = parser.parse_args()

    print(measured_on())
    print(f"load average at start: {load_averages()}")
    times: dict[str, list[float]] = {"import torch": [], **{name: [] for name in TARGETS}}
    for round_number in range(1, args.repeats + 1):
        times["import torch"].append(wall([sys.executable, "-c", "import torch"]))
        with tempfile.TemporaryDirectory() as site:
            times["mkdocs build --strict"].append(build_site(Path(site) / "site"))
        times["pytest docs"].append(timed_pytest("docs"))
        if args.suite:
            times["pytest (whole suite)"].append(timed_pytest())
        times["import torch"].append(wall([sys.executable, "-c", "import torch"]))
        print(f"round {round_number}: " + ", ".join(f"{name} {values[-1]:.1f} s" for name, values in times.items()
                                                  if values), flush=True)
    bare = statistics.median(times["import torch"])
    print(f'\npython -c "import torch": median {bare:.2f} s of {times["import torch"]}')
    for name, target in TARGETS.items():
        if times[name]:
            median = statistics.median(times[name])
            print(f"{name}: median {median:.1f} s of {[round(t, 1) for t in times[name]]} "
                  f"= {median / bare:.1f}x the import (target: at most {target}x)")
    print(f"load average at end: {load_averages()}")


if __name__ == "__main__":
    main()
