"""The copy button of a page's first Python block copies code that runs and prints what the page shows.

The visit (conftest.py) clicks Material's copy button and reads the clipboard;
the copied code of every page then runs in two Python processes, English and
Chinese pages side by side (tests/browser/run_snippets.py), started before the
pages are visited so that importing torch overlaps with the browser's work.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from browser.harness import DOCS, LANGUAGES, ROOT, language_of, page_id, page_url

# Markdown pages with a ```python block (whose first block has a copy button);
# notebook cells are checked by test_notebooks.py.
PAGES = [
    page_url(md) for language in LANGUAGES for md in sorted((DOCS / language).rglob("*.md"))
    if "```python\n" in md.read_text(encoding="utf-8")
]
RUNNER = Path(__file__).resolve().parent / "run_snippets.py"


@pytest.fixture(scope="module")
def copied_runs(visitor) -> dict[str, dict]:
    """Per page: the result of running what its copy button copied."""
    runners = {
        language: subprocess.Popen(
            [sys.executable, str(RUNNER)], cwd=ROOT, text=True, encoding="utf-8",
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        for language in ("en", "zh")
    }
    visits = [visitor.visit(path) for path in PAGES]  # one visit per page, shared
    results = {}
    for language, runner in runners.items():
        snippets = [
            {"name": visit.path, "code": visit.copied}
            for visit in visits if visit.copied and language_of(visit.path) == language
        ]
        stdout, stderr = runner.communicate(json.dumps(snippets), timeout=300)
        assert runner.returncode == 0, f"run_snippets.py failed:\n{stderr}"
        results.update({result["name"]: result for result in json.loads(stdout)})
    return results


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_copy_button_copies_code_that_prints_what_the_page_shows(visitor, copied_runs, path):
    visit = visitor.visit(path)
    assert visit.has_python, f"{path}: its Markdown has a ```python block, the page shows none"
    assert not visit.copy_problem, f"{path}: clicking the copy button failed: {visit.copy_problem}"
    assert visit.copied, f"{path}: the copy button put nothing on the clipboard"
    result = copied_runs[path]
    assert not result["error"], f"{path}: the copied code fails:\n{visit.copied}\n---\n{result['error']}"
    printed, shown = result["stdout"].rstrip("\n"), visit.shown_output.rstrip("\n")
    assert printed == shown, (
        f"{path}: the copied code prints\n{printed}\n--- but the page shows ---\n{shown}"
    )
