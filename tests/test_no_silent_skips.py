"""No fenced block in docs/ goes unexecuted without saying so.

pytest-codeblocks runs only fences whose info string is exactly `python`;
`py`, `pycon`, `python title="..."` and `~~~` fences pass without a word.
Every fence must therefore be an executed block, an output block, or carry
<!--pytest.mark.skip(reason="...")--> with the reason it is not run.
"""

import pytest
from pytest_codeblocks import extract_from_file

from docs_pages import page_id, pages
from markdown_fences import parse_page, silently_skipped


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_every_fence_runs_or_says_why_not(page):
    unexecuted = [
        f"{fence.where}: the fence {fence.chars}{fence.info} would not be executed "
        "(only ```python runs); make it ```python, or put "
        '<!--pytest.mark.skip(reason="why it is not run")--> on the line above it'
        for fence in silently_skipped(parse_page(page))
    ]
    if unexecuted:
        pytest.fail("\n".join(unexecuted), pytrace=False)


def _without_blank_lines(code: str) -> str:
    # pytest-codeblocks drops the blank lines of blocks indented in tabs and
    # admonitions; they change nothing about what the code does.
    return "".join(line for line in code.splitlines(keepends=True) if line.strip())


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_executed_blocks_are_exactly_what_pytest_codeblocks_extracts(page):
    """Our parser and pytest-codeblocks agree on which code runs and what it must print."""
    ours = [
        (fence.start, _without_blank_lines(fence.body), fence.output.body if fence.output else None)
        for fence in parse_page(page)
        if fence.executed
    ]
    theirs = [
        (block.lineno, _without_blank_lines(block.code), block.expected_output)
        for block in extract_from_file(page)
        if block.syntax == "python" and not block.marks
    ]
    assert ours == theirs
