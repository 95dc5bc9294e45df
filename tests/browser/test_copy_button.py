"""The copy button of a page's first Python block copies code that runs and prints what the page shows.

The visit (visits.py) clicks Material's copy button and reads the clipboard.
What each page's button copied then runs alone, in a fresh interpreter of its
own (engine.fresh: one server forks one child per copied block), exactly as
a reader pasting it into a new Python session.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sitepages import Block, page_id, page_url, pages

from engine.fresh import Replay

# Markdown pages with a ```python block (whose first block has a copy button);
# notebook cells are run by the docs plugin and in Jupyter (test_notebooks.py).
PAGES = [page for page in pages() if "```python\n" in page.read_text(encoding="utf-8")]


@pytest.fixture(scope="module")
def copied_runs(visitor) -> dict[str, list]:
    """Per page: the runs of what its copy button copied (one block, or none if nothing was copied)."""
    visits = {page: visitor.visit(page_url(page)) for page in PAGES}  # one visit per page, shared
    jobs = {
        str(page): [Block(path=Path(f"copied from {page_url(page)}"), source=visit.copied, line=0)]
        for page, visit in visits.items() if visit.copied
    }
    return Replay(jobs).results()


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_copy_button_copies_code_that_prints_what_the_page_shows(visitor, copied_runs, page):
    path = page_url(page)
    visit = visitor.visit(path)
    assert visit.has_python, f"{path}: its Markdown has a ```python block, the page shows none"
    assert not visit.copy_problem, f"{path}: clicking the copy button failed: {visit.copy_problem}"
    assert visit.copied, f"{path}: the copy button put nothing on the clipboard"
    [run] = copied_runs[str(page)]
    assert not run.traceback, f"{path}: the copied code fails:\n{visit.copied}\n---\n{run.traceback}"
    assert not run.stderr, f"{path}: the copied code writes to stderr:\n{run.stderr}"
    printed, shown = run.stdout.rstrip("\n"), visit.shown_output.rstrip("\n")
    assert printed == shown, f"{path}: the copied code prints\n{printed}\n--- but the page shows ---\n{shown}"
