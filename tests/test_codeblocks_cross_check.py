"""Our parser and pytest-codeblocks agree on which code runs and what it must print.

pytest-codeblocks is the reference for the markup the pages use: its own
extractor reads every page, and the blocks this suite executes must be
exactly the ones it finds, with the same expected outputs. (Its runner is not
used: it runs each block alone, while a page here is one session; see
tests/README.md.) That pytest-codeblocks passes over some fences without a word
(``py``, ``pycon``, ``python title=...``, ``~~~``) is caught when the docs
plugin collects a page: such a fence is a collection error unless declared
with ``<!--pytest.mark.skip(reason="...")-->`` (tests/test_docs_plugin.py).
"""

import pytest
from pytest_codeblocks import extract_from_file

from sitepages import page_id, pages, parse


def _without_blank_lines(code: str) -> str:
    # pytest-codeblocks drops the blank lines of blocks indented in tabs and
    # admonitions; they change nothing about what the code does.
    return "".join(line for line in code.splitlines(keepends=True) if line.strip())


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_executed_blocks_are_exactly_what_pytest_codeblocks_extracts(page):
    ours = [
        (block.line, _without_blank_lines(block.source), block.output.text if block.output else None)
        for block in parse(page)
        if block.executed
    ]
    theirs = [
        (block.lineno, _without_blank_lines(block.code), block.expected_output)
        for block in extract_from_file(page)
        if block.syntax == "python" and not block.marks
    ]
    assert ours == theirs
