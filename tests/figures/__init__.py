"""Figures generated from the pages' own code.

Each module in this package renders some figures and exposes
``render() -> dict[str, str]``: repository-relative path -> SVG text, for both
languages. ``python tests/update_figures.py`` writes them all; the suite fails
when a committed figure differs from what ``render()`` returns now.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import torch

from markdown_fences import parse_page


def page_namespace(path: Path, until: str | None = None) -> dict[str, object]:
    """Run a page's executed blocks in order, as a reader would, and return its names.

    A figure drawn from this namespace shows exactly what the page computed.
    With ``until``, stop after the first block that defines that name: a later
    block may change it (a backward pass frees the graph a figure walks).
    """
    namespace: dict[str, object] = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()), torch.random.fork_rng():
        for fence in parse_page(path):
            if fence.executed:
                exec(fence.compiled(), namespace)
                if until is not None and until in namespace:
                    return namespace
    if until is not None:
        raise LookupError(f"{path} never defines {until!r}")
    return namespace
