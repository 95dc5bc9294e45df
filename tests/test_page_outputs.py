"""Every executed block prints exactly the output its page shows."""

import difflib

import pytest

from docs_pages import page_id, pages
from page_runner import BlockRun, run_page


def _report(run: BlockRun) -> list[str]:
    fence = run.fence
    messages = run.complaints
    if run.stdout != run.expected:
        shown = f"the output block at line {fence.output.start}" if fence.output else "no output block"
        diff = difflib.unified_diff(
            run.expected.splitlines(keepends=True),
            run.stdout.splitlines(keepends=True),
            fromfile="expected (shown on the page)",
            tofile="actual (printed by the block)",
        )
        messages.append(
            f"{fence.where}: printed output differs from {shown}\n{''.join(diff)}"
            "(to rewrite every output block from a real run: python tests/update_outputs.py)"
        )
    return messages


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_every_block_prints_what_the_page_shows(page):
    runs = run_page(page)
    failures = [message for run in runs for message in _report(run)]
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)
