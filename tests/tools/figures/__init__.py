"""Figures generated from the pages' own code.

Each module in this package renders some figures and exposes
``render() -> dict[str, str]``: repository-relative path -> SVG text, for both
languages. ``python -m tests.tools update_figures`` writes them all;
tests/test_figures.py fails when a committed figure differs from what
``render()`` returns now.
"""

from __future__ import annotations

from pathlib import Path

import torch

from sitepages import parse
from tests.pagerun.execute import execute, new_session

# The colours every figure is drawn with, one set per colour scheme of the site
# (Material's light "default" and dark "slate"), so that figures sit on the page.
THEME_COLOURS = {
    "light": {"background": "#ffffff", "border": "#d0d7de", "text": "#1f2328", "muted": "#57606a"},
    "dark": {"background": "#1e2129", "border": "#3d444d", "text": "#e6edf3", "muted": "#9198a1"},
}


def page_namespace(path: Path, until: str | None = None) -> dict[str, object]:
    """Run a page's blocks in order, as a reader would, and return its names.

    A figure drawn from this namespace shows exactly what the page computed.
    With ``until``, stop after the first block that defines that name: a later
    block may change it (a backward pass frees the graph a figure walks).
    The page's printed output is discarded (the suite checks it) and the
    caller's random state is left as it was.
    """
    session = new_session()
    with torch.random.fork_rng():
        runs = execute(parse(path), session, isolated=False, until=(lambda names: until in names) if until else None)
    failed = [run for run in runs if run.traceback]
    if failed:
        raise RuntimeError(f"{failed[0].block.where}: the page raised while drawing its figure\n{failed[0].traceback}")
    if until is not None and until not in vars(session):
        raise LookupError(f"{path} never defines {until!r}")
    return vars(session)
