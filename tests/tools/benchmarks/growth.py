"""What one more block costs the suite, and one more page the build: per unit, at two commits, in one run.

    python -m tests.tools benchmarks.growth [--base REV] [--head REV] [--repeats 1] [--dry-run]

For each commit (default: the base the growth is compared with, and HEAD), a
detached git worktree is made in a temporary folder and, round after round so
that a noisy moment hits both alike, this script times there:

* `pytest docs`: every block of every page and notebook of both languages;
* `mkdocs build --strict`: both languages;
* a bare `python -c "import torch"`, the unit every timing is divided by.

It prints, per commit, the executed blocks and the built pages it counted,
the medians, and the cost per block and per page in milliseconds and in
thousandths of the import. The site grows cheaply when these per-unit costs do
not grow with it (the target of "growth stays cheap": when the site doubles,
neither total grows by more than its content). Each pytest run must pass; a
commit whose pages fail is reported, not timed. Nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.tools.benchmarks.common import ENV, ROOT, build_site, load_averages, measured_on, timed_pytest, wall

# Counted inside the worktree, with its own page model: what that commit executes and builds.
_COUNT = """
import json
from sitepages import parse, sources
blocks = sum(block.executed for source in sources() for block in parse(source))
print(json.dumps({"blocks": blocks, "pages": len(sources())}))
"""


def _worktree(revision: str, folder: Path) -> Path:
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(folder), revision],
                   cwd=ROOT, check=True, capture_output=True, text=True)
    return folder


def _count(tree: Path) -> dict[str, int]:
    found = subprocess.run([sys.executable, "-c", _COUNT], cwd=tree, env={**ENV, "PYTHONPATH": ".:docs/hooks"},
                           check=True, capture_output=True, text=True)
    return json.loads(found.stdout)


def _build(tree: Path) -> float:
    with tempfile.TemporaryDirectory() as site:
        return build_site(Path(site) / "site", cwd=tree)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="1370148", help="the commit growth is measured from (default 1370148, "
                                                          "before the 2026-11-27 round of issues)")
    parser.add_argument("--head", default="HEAD", help="the commit measured against it (default HEAD)")
    parser.add_argument("--repeats", type=int, default=1, help="rounds (default 1); medians are shown")
    parser.add_argument("--dry-run", action="store_true", help="say what would be timed, and time nothing")
    args = parser.parse_args()
    if args.dry_run:
        print(f"would time pytest docs and mkdocs build --strict at {args.base} and {args.head}, "
              f"{args.repeats} round(s), each against a bare import torch")
        return

    print(measured_on())
    print(f"load average at start: {load_averages()}")
    with tempfile.TemporaryDirectory(prefix="growth-") as scratch:
        revisions = dict.fromkeys((args.base, args.head))  # one worktree when both name one commit
        trees = {rev: _worktree(rev, Path(scratch) / f"tree{i}") for i, rev in enumerate(revisions)}
        try:
            counts = {rev: _count(tree) for rev, tree in trees.items()}
            times: dict[str, dict[str, list[float]]] = {rev: {"docs": [], "build": []} for rev in trees}
            imports: list[float] = []
            for round_number in range(1, args.repeats + 1):
                imports.append(wall([sys.executable, "-c", "import torch"]))
                for rev, tree in trees.items():
                    times[rev]["docs"].append(timed_pytest("docs", cwd=tree))
                    times[rev]["build"].append(_build(tree))
                imports.append(wall([sys.executable, "-c", "import torch"]))
                print(f"round {round_number}: " + "; ".join(
                    f"{rev}: pytest docs {t['docs'][-1]:.1f} s, build {t['build'][-1]:.1f} s"
                    for rev, t in times.items()), flush=True)
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
    unit = statistics.median(imports)
    print(f'\npython -c "import torch": median {unit:.2f} s')
    for rev in trees:
        blocks, built = counts[rev]["blocks"], counts[rev]["pages"]
        docs, build = statistics.median(times[rev]["docs"]), statistics.median(times[rev]["build"])
        print(f"{rev}: {blocks} executed blocks, {built} pages and notebooks (both languages)\n"
              f"  pytest docs {docs:.1f} s = {1000 * docs / blocks:.1f} ms a block "
              f"({1000 * docs / blocks / unit:.1f} thousandths of the import)\n"
              f"  mkdocs build --strict {build:.1f} s = {1000 * build / built:.0f} ms a page "
              f"({1000 * build / built / unit:.0f} thousandths of the import)")
    print(f"load average at end: {load_averages()}")


if __name__ == "__main__":
    main()
