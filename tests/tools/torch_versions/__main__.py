"""The torch version matrix: every page's code run on one release of every minor version, stored as data.

    python -m tests.tools torch_versions status                   # the matrix, and what is stale
    python -m tests.tools torch_versions run --release 2.4.1      # one release's stale pages: build/torch-versions/
    python -m tests.tools torch_versions merge                    # ... merged into docs/data/torch-versions/
    python -m tests.tools torch_versions refresh                  # every release in turn, run and merged
    python -m tests.tools torch_versions refresh --versions 2.4.1 --pages docs/en/retain-graph.md
    python -m tests.tools torch_versions refresh --dry-run        # what it would install and run
    python -m tests.tools torch_versions discover [--write]       # releases on PyPI the matrix lacks
    python -m tests.tools torch_versions releases --json          # the releases, as the weekly workflow's matrix

The weekly workflow (.github/workflows/torch-versions.yml) runs ``run`` for every
release in a job of its own and ``merge`` on all their results. The pinned
release runs in this interpreter, without a download; every other one in a
virtual environment that is deleted when it is done (one multi-GB build at a
time). The package's docstring (tests/tools/torch_versions/__init__.py) says
which module does what.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from sitepages import ROOT

from .data import RELEASES, english_sources, load, merge, planned_releases, stale

RESULTS = ROOT / "build" / "torch-versions"  # where `run` writes and `merge` reads, unless told otherwise


def status() -> None:
    pages = english_sources()
    for version in planned_releases():
        data = load(version)
        names = stale(version, pages)
        unchanged = [name for name, stored in data["pages"].items()
                     if name in pages and name not in names and "blocks" in stored
                     and all("stdout_hash" in b and "stderr" not in b and "error" not in b for b in stored["blocks"])]
        print(f"torch {version:8} {data.get('torch', '(no data)'):16} unchanged {len(unchanged):3} of {len(pages)}"
              f"{f', stale {len(names)}' if names else ''}")


def listed(versions: list[str]) -> list[str]:
    unknown = [v for v in versions if v not in planned_releases()]
    if unknown:
        raise SystemExit(f"{', '.join(unknown)}: not in {RELEASES.relative_to(ROOT)} "
                         f"({', '.join(planned_releases())}); add them there first")
    return versions


def _running(command: argparse.ArgumentParser) -> None:
    """The options of the commands that install and run a release."""
    command.add_argument("--pages", nargs="+", type=Path, help="English pages or notebooks (default: all)")
    command.add_argument("--dry-run", action="store_true", help="say what would be installed and run, do nothing")
    command.add_argument("--force", action="store_true", help="run the chosen pages even where their data is current")
    command.add_argument("--venvs", type=Path, default=Path(tempfile.gettempdir()) / "torch-version-matrix",
                         help="where the virtual environment of the release being run is made")
    command.add_argument("--index-url", help="where to install torch from, e.g. https://download.pytorch.org/whl/cpu "
                                             "(default: PyPI, whose recent releases are CUDA builds)")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools torch_versions", description=__doc__.split("\n\n")[0],
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("status", help="the matrix in numbers, and what is stale")
    one = commands.add_parser("run", help="run one release's stale pages and write its results (then: merge)")
    one.add_argument("--release", required=True, help="a release of releases.yml, e.g. 2.4.1")
    one.add_argument("--out", type=Path, default=RESULTS,
                     help=f"where RELEASE.json is written (default: {RESULTS.relative_to(ROOT)})")
    one.add_argument("--keep-venv", action="store_true",
                     help="keep the virtual environment, to look into a page there (a later run reuses it)")
    _running(one)
    join = commands.add_parser("merge", help="put the results of `run` into docs/data/torch-versions")
    join.add_argument("results", nargs="*", type=Path, default=[RESULTS],
                      help=f"RELEASE.json files or folders of them (default: {RESULTS.relative_to(ROOT)})")
    every = commands.add_parser("refresh", help="run and merge every release's stale pages, one release at a time")
    every.add_argument("--versions", nargs="+", help="releases to run (default: every one in releases.yml)")
    _running(every)
    find = commands.add_parser("discover", help="releases on PyPI that the matrix lacks")
    find.add_argument("--write", action="store_true", help="add them to releases.yml")
    show = commands.add_parser("releases", help="the releases of releases.yml, oldest first")
    show.add_argument("--json", action="store_true", help="as one JSON list (the weekly workflow's matrix)")
    args = parser.parse_args()

    if args.command == "status":
        status()
    elif args.command == "releases":
        print(json.dumps(planned_releases()) if args.json else "\n".join(planned_releases()))
    elif args.command == "discover":
        from .discover import discover

        discover(args.write)
    elif args.command == "merge":
        print("\n".join(merge(args.results)))
    else:
        from .refresh import refresh, run_release

        pages = english_sources(args.pages)
        if args.command == "run":
            run_release(listed([args.release])[0], pages, args.out, args.venvs, args.index_url, args.dry_run,
                        args.force, args.keep_venv)
        else:
            refresh(listed(args.versions or planned_releases()), pages, RESULTS, args.venvs, args.index_url,
                    args.dry_run, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
