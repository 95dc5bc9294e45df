"""Replay every page and notebook on another torch version, and print what differs: a version matrix.

    python tests/tools/torch_version_replay.py 2.15.0 2.4.1
    python tests/tools/torch_version_replay.py 2.15.0 --pages docs/en/troubleshooting.md

Not part of the test suite: the site's outputs are asserted against the
pinned torch (pyproject.toml). This shows what a reader on another version
sees. For each version, a virtual environment is made once and cached in
``$XDG_CACHE_HOME/intermediate-gradients/torch-VERSION`` (default
``~/.cache/...``) with that torch and the suite's other pins (numpy,
tensorflow-cpu, and what the page parser needs). Each English page and
notebook then runs there in a fresh interpreter, exactly as in the
portability pass (tests/engine/fresh.py), and every block whose output
differs from the page is printed with a diff; the Chinese pages run the
same code (tests/test_translation_parity.py).

Recent torch releases are published on PyPI as CUDA builds only (several GB
to download once); they run on a CPU.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

from sitepages import ROOT, parse, sources
from tests.pagerun.fresh import Replay

# What the replay needs besides torch: the parser's packages and the pages' other imports.
NEEDED = ("numpy", "markdown", "pymdown-extensions", "nbformat", "tensorflow-cpu")


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "intermediate-gradients"


def pins() -> dict[str, str]:
    """name -> requirement, from pyproject.toml (markdown is pinned by mkdocs' own range)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = {}
    for requirement in project["dependencies"] + project["optional-dependencies"]["test"]:
        name = re.split(r"[=<>!~\[ ]", requirement, maxsplit=1)[0].lower()
        found[name] = requirement
    return found


def environment(version: str) -> Path:
    """The cached virtual environment's python for this torch version, made on first use."""
    folder = cache_root() / f"torch-{version}"
    python = folder / "bin" / "python"
    marker = folder / "ready"
    if marker.is_file():
        return python
    print(f"creating {folder} (torch=={version}; once, it can take minutes)", file=sys.stderr)
    venv.create(folder, with_pip=True, clear=True)
    pinned = pins()
    requirements = [f"torch=={version}"] + [pinned.get(name, name) for name in NEEDED]
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements],
                   check=True)
    marker.write_text(version, encoding="utf-8")
    return python


def differences(version: str, chosen: list[Path]) -> dict[Path, list[str]]:
    python = environment(version)
    jobs = {str(source): parse(source) for source in chosen}
    runs = Replay(jobs, python=str(python)).results(timeout=3600)
    report = {}
    for source in chosen:
        found = []
        for run in runs[str(source)]:
            if run.traceback:
                found.append(f"{run.block.where}: raised\n{run.traceback.rstrip()}")
            if run.stderr:
                found.append(f"{run.block.where}: wrote to stderr\n{run.stderr.rstrip()}")
            if not run.output_matches:
                diff = difflib.unified_diff(
                    run.block.expected.splitlines(keepends=True), run.stdout.splitlines(keepends=True),
                    fromfile="shown on the page", tofile=f"torch {version}", n=0,
                )
                found.append(f"{run.block.where}: output differs\n" + "".join(list(diff)[2:]).rstrip())
        report[source] = found
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="+", help="torch versions, e.g. 2.15.0 2.4.1")
    parser.add_argument("--pages", nargs="*", type=Path, help="pages or notebooks (default: every English one)")
    args = parser.parse_args()
    chosen = args.pages or sources("en")
    for version in args.versions:
        report = differences(version, chosen)
        differing = {source: found for source, found in report.items() if found}
        print(f"\n=== torch {version}: {len(differing)} of {len(report)} pages differ from the pages "
              f"(verified with the pinned torch)")
        for source, found in differing.items():
            print(f"\n--- {source}")
            for entry in found:
                print(entry)
    return 0


if __name__ == "__main__":
    sys.exit(main())
