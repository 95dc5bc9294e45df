"""Regenerate every figure in docs/ from the code that draws it.

    python -m tests.tools update_figures

Every module in tests/tools/figures/ that defines ``render() -> {path: svg text}``
is a figure source; this writes each path it returns (repository-relative)
and says which files changed. tests/test_figures.py fails when a committed
figure differs from what render() returns, so run this after changing a
renderer or the page code a figure is drawn from, and commit the result.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Callable
from pathlib import Path

from sitepages import ROOT

FIGURES_PACKAGE = ROOT / "tests" / "tools" / "figures"
COMMAND = "python -m tests.tools update_figures"


def renderers() -> dict[str, Callable[[], dict[str, str]]]:
    """Module name -> its render(), for every module of tests/tools/figures/ that has one."""
    found = {}
    for module in sorted(pkgutil.iter_modules([str(FIGURES_PACKAGE)]), key=lambda m: m.name):
        imported = importlib.import_module(f"tests.tools.figures.{module.name}")
        if callable(getattr(imported, "render", None)):
            found[module.name] = imported.render
    return found


def rendered(render: Callable[[], dict[str, str]], root: Path = ROOT) -> dict[str, str]:
    """Call a renderer from the repository root (pages run with paths relative to it)."""
    before = Path.cwd()
    os.chdir(root)
    try:
        figures = render()
    finally:
        os.chdir(before)
    for path in figures:
        if Path(path).is_absolute() or not path.startswith("docs/"):
            raise ValueError(f"render() must return repository-relative paths under docs/, got {path!r}")
    return figures


def stale(figures: dict[str, str], root: Path = ROOT) -> list[str]:
    """One message per figure whose committed file is missing or differs from its rendering."""
    messages = []
    for path, text in sorted(figures.items()):
        file = root / path
        if not file.exists():
            messages.append(f"{path}: missing; run `{COMMAND}` to write it")
        elif file.read_text(encoding="utf-8") != text:
            messages.append(f"{path}: stale, differs from what its renderer draws now; run `{COMMAND}`")
    return messages


def write(figures: dict[str, str], root: Path = ROOT) -> list[str]:
    """Write the figures; return the paths whose content changed."""
    changed = []
    for path, text in sorted(figures.items()):
        file = root / path
        if file.exists() and file.read_text(encoding="utf-8") == text:
            continue
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        changed.append(path)
    return changed


def main() -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()  # --help; takes no options
    for name, render in renderers().items():
        figures = rendered(render)
        changed = write(figures)
        for path in sorted(figures):
            print(f"{path}: {'written' if path in changed else 'unchanged'} ({name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
