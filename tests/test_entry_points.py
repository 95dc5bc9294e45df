"""A reader can copy the block where they start reading, and it runs.

Readers land in the middle of things: on a page from search, where they copy
its short answer, or on a section from the table of contents, the question
bank or the troubleshooting page, where they copy its first block. So:

- every Markdown page that runs code opens with a short answer (the
  ``short-answer`` admonition, before the first section and the first block),
  except the pages listed in NO_SHORT_ANSWER with the reason;
- the short answer runs alone: its blocks, in a fresh interpreter with nothing
  before them, print exactly what the page shows;
- each ``##`` section's first block runs alone the same way, or the section
  says in one line which earlier block it builds on, with a link (a paragraph
  marked ``{ .builds-on }`` before the block).

The runs use the fresh-interpreter server of the portability pass
(tests.pagerun.fresh): one server imports torch once and forks a child per
block. A Chinese block whose code equals its English twin's, comments aside,
is run once. Notebooks (the labs) are read top to bottom and are not checked.
What finds the short answer and the sections: tests/pagerun/entry_points.py.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from sitepages import page_id, pages, parse_page
from sitepages.twins import without_comments
from tests.pagerun.entry_points import sections, short_answer
from tests.pagerun.fresh import Replay

PAGES = pages()

# Pages that run code and open without a short answer, with the reason (English path; both languages).
NO_SHORT_ANSWER = {
    "index.md": "the home page routes readers to the page that answers; its one block prints the torch version",
    "troubleshooting.md": "an index of error messages: each section is the short answer for its message, and its "
                          "first block runs alone",
    "copy-ready-helpers.md": "reference: each section shows a whole file of snippets/ to copy, then uses it",
    "cost-of-methods.md": "reference: measurements from a script (python -m tests.tools cost_page), not a fix to copy",
}

BUILDS_ON_EXAMPLE = (
    "make the block self-contained (its imports, seeds and the names it uses), or say which earlier block it "
    "builds on, in one line before it:\n\n    This section builds on [the toy graph](#the-toy-graph) above.\n"
    "    { .builds-on }\n\n(Chinese: 本节接着使用[玩具计算图](#玩具计算图)一节的代码。)")


def _english_path(source: Path) -> str:
    return page_id(source).split("/", 1)[1]


def entry_blocks(source: Path) -> dict[str, list]:
    """The page's blocks that must run alone: name -> the blocks of that run, in order."""
    blocks = parse_page(source)
    jobs = {}
    line, answer = short_answer(source, blocks)
    if answer:
        jobs[f"{source}:{line} (short answer)"] = answer
    for section in sections(source, blocks):
        if section.first is not None and section.builds_on_line is None:
            jobs[f"{source}:{section.line} (section {section.title!r})"] = [section.first]
    return jobs


@pytest.fixture(scope="module")
def alone(request) -> dict[str, list]:
    """Run every entry block of the pages this worker tests, each job alone in a fresh interpreter."""
    chosen = {item.callspec.params["source"] for item in request.session.items
              if getattr(item, "module", None) is request.module
              and getattr(item, "originalname", "") == "test_entry_blocks_run_alone"}
    jobs = {name: blocks for source in PAGES if source in chosen for name, blocks in entry_blocks(source).items()}
    # Run a block once per code, comments aside: a Chinese block repeats its English twin.
    unique: dict[tuple, str] = {}
    for name, blocks in jobs.items():
        unique.setdefault(tuple(without_comments(block) for block in blocks), name)
    if not jobs:
        return {}
    runs = Replay({name: jobs[name] for name in unique.values()}).results(timeout=1200)
    results = {}
    for name, blocks in jobs.items():
        first = unique[tuple(without_comments(block) for block in blocks)]
        results[name] = [replace(run, block=block) for run, block in zip(runs[first], blocks, strict=False)]
    return results


def _failures(runs: list, blocks: list) -> list[str]:
    failures = [message for run in runs for message in run.messages()]
    if not failures and len(runs) != len(blocks):
        failures.append(f"{len(runs)} of its {len(blocks)} blocks ran")
    return failures


@pytest.mark.parametrize("source", PAGES, ids=page_id)
def test_page_opens_with_a_short_answer(source):
    blocks = [block for block in parse_page(source) if block.executed]
    if not blocks or _english_path(source) in NO_SHORT_ANSWER:
        return
    line, answer = short_answer(source)
    if line is None:
        pytest.fail(f"{source}: runs code but has no short answer. Open the page, right after its title, with\n\n"
                    '    !!! short-answer "Short answer"   (Chinese: "简短回答")\n\n'
                    "and inside it a sentence or two on what to do and a block of a few lines with its output "
                    "(README, \"Writing a page\"); or, if the page answers no problem, add it to NO_SHORT_ANSWER "
                    "in tests/test_entry_points.py with the reason.", pytrace=False)
    problems = []
    if not answer:
        problems.append(f"the short answer at line {line} has no executed python block")
    elif answer[0].line != blocks[0].line:
        problems.append(f"the page's first block (line {blocks[0].line}) comes before its short answer "
                        f"(line {line}): the reader sees the answer first, so it runs first")
    heading = next((section.line for section in sections(source) if section.line < line), None)
    if heading is not None:
        problems.append(f"the short answer (line {line}) comes after the section at line {heading}: "
                        "put it right after the page's title")
    if problems:
        pytest.fail(f"{source}: " + "; ".join(problems), pytrace=False)


@pytest.mark.parametrize("source", PAGES, ids=page_id)
def test_entry_blocks_run_alone(alone, source):
    failures = []
    for name, blocks in entry_blocks(source).items():
        problems = _failures(alone[name], blocks)
        if problems:
            advice = "" if name.endswith("(short answer)") else "\n" + BUILDS_ON_EXAMPLE
            failures.append(f"{name}: does not run alone in a fresh interpreter:\n" + "\n".join(problems) + advice)
    for section in sections(source):
        if section.builds_on_line is not None and not section.builds_on_has_link:
            failures.append(f"{source}:{section.builds_on_line}: the builds-on line of section {section.title!r} "
                            "links nothing: name the section or block it builds on, with a link")
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)
