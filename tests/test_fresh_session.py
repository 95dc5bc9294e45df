"""A reader who pastes a page's visible blocks into a new interpreter sees the page's outputs.

The in-process run (test_page_outputs) resets state between blocks; this test
proves the reset hides nothing, by replaying each page in a fresh interpreter
with no reset at all, and also checks that nothing appears on stderr there.
English pages only: the parity test proves the Chinese ones run the same code.
"""

import difflib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from docs_pages import page_id, pages
from markdown_fences import parse_page

REPLAY = Path(__file__).with_name("fresh_session.py")


@pytest.fixture(scope="session")
def replays(request):
    """Start the selected pages' interpreters at once: torch's import dominates, and it parallelises."""
    selected = {
        item.callspec.params["page"]
        for item in request.session.items
        if item.originalname == "test_page_replays_identically_in_a_fresh_interpreter"
    }
    return {
        page: subprocess.Popen(
            [sys.executable, str(REPLAY), str(page)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for page in sorted(selected)
    }


@pytest.mark.parametrize("page", pages("en"), ids=page_id)
def test_page_replays_identically_in_a_fresh_interpreter(page, replays):
    stdout, stderr = replays[page].communicate(timeout=300)
    assert replays[page].returncode == 0, f"{page}: the replay itself failed:\n{stderr}"
    failures = []
    expected = {fence.start: fence for fence in parse_page(page) if fence.executed}
    for result in json.loads(stdout):
        fence = expected[result["line"]]
        if result["error"]:
            failures.append(f"{fence.where}: raised in a fresh interpreter\n{result['error']}")
        shown = fence.output.body if fence.output else ""
        if result["stdout"] != shown:
            diff = difflib.unified_diff(
                shown.splitlines(keepends=True), result["stdout"].splitlines(keepends=True),
                fromfile="shown on the page", tofile="printed in a fresh interpreter",
            )
            failures.append(f"{fence.where}: output differs in a fresh interpreter\n{''.join(diff)}")
    if stderr:
        failures.append(f"{page}: a fresh interpreter wrote to stderr, which the page does not show:\n{stderr}")
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)
