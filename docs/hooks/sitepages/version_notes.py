"""What other torch releases do with a page's code, written for the site: notes at blocks, and the versions page.

From the version matrix (``torch_versions``): ``block_notes`` gives, per
executed block that prints something else, raises, or writes to stderr on
some release, a note: a one-line title that says in words what differs on
which releases (``differences``), and a body that shows, per group of
releases that behave alike, exactly what they print or raise. A difference
that follows from an earlier block's difference on the same release says so
and links that block's note. ``matrix`` writes, for the versions page, a
narrow table (per page: the releases its code runs on, and those on which its
output is identical) and per page the sections where it differs, in the same
words as the notes; ``changes_list`` the behaviour changes
(docs/data/torch-versions/changes.yml) the data backs. Releases with no data
for the page's current code are never shown as agreeing: they are "not yet
checked". All of it is Markdown, in the page's language;
docs/hooks/torch_version_notes.py puts it into the pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import parse
from .differences import Cause, cause, phrases, sentence
from .layout import DEFAULT_LANGUAGE, ROOT, twin
from .sections import plain_title, section_of
from .strings import strings
from .torch_versions import (
    DATA,
    PageResult,
    backed,
    changes,
    page_results,
    running_range,
    unchanged_range,
    version_span,
)


def _fence(text: str, indent: str) -> list[str]:
    ticks = "````" if "```" in text else "```"
    return [f"{indent}{ticks}text", *(f"{indent}{line}" if line else "" for line in text.rstrip("\n").split("\n")),
            f"{indent}{ticks}"]


def note_anchor(index: int) -> str:
    """The id of the note of the executed block ``index`` (the notes of a page link each other by it)."""
    return f"torch-note-{index + 1}"


@dataclass
class Note:
    """The note of one block: its one-line title, and its body (Markdown lines)."""

    index: int
    title: str
    body: list[str] = field(default_factory=list)
    causes: set[int] = field(default_factory=set)  # the earlier blocks its differences follow from


def _compared(source: Path, data: Path) -> list[PageResult]:
    return [result for result in page_results(source, data) if result.state in ("same", "differs")]


def block_notes(source: Path, language: str, link: str | None = "", data: Path = DATA) -> dict[int, Note]:
    """Index of an executed block -> its note (none for a block every release agrees on).

    ``link``: where the notes of this page are, for a title that names an earlier block's note ("" on the
    page itself; a relative URL of the page elsewhere; None: no link, only words).
    """
    words = strings("torch_versions", language)
    named = strings("version_differences", language)
    results = _compared(source, data)
    blocks = [block for block in parse(ROOT / twin(source, DEFAULT_LANGUAGE)) if block.executed]
    codes = [block.code for block in blocks]
    notes = {}
    for index, block in enumerate(blocks):
        groups: dict[tuple, list[str]] = {}
        for result in results:
            found = result.blocks[index]
            if found.state in ("same", "not run"):
                continue
            follows = cause(index, codes, list(result.blocks))
            groups.setdefault((found, follows), []).append(result.version)
        if not groups:
            continue
        body: list[str] = []
        titles: dict[tuple, list[str]] = {}  # one sentence per distinct difference, its releases merged
        causes = set()
        for (found, follows), versions in groups.items():
            said = tuple(phrases(block.shown, found))
            titles.setdefault((said, follows), []).extend(versions)
            if follows is not None:
                causes.add(follows.block)
            plural = "" if len(versions) > 1 else "s"
            span = version_span(versions)
            if found.state == "raises":
                text = found.printed + found.text
                body += [words["raises"].format(versions=span, s=plural), "", *_fence(text, ""), ""]
            elif found.text != block.shown:
                body += [words["print"].format(versions=span, s=plural), "", *_fence(found.text, ""), ""]
            if found.stderr:
                body += [words["stderr"].format(versions=span, s=plural), "", *_fence(found.stderr, ""), ""]
        title = words["between"].join(
            sentence(version_span(versions), len(versions), list(said), language, follows,
                     _block_name(follows, index, named, link))
            for (said, follows), versions in titles.items())
        notes[index] = Note(index, title, body, causes)
    return notes


def _block_name(follows: Cause | None, index: int, named: dict[str, str], link: str | None) -> str:
    if follows is None:
        return ""
    name = named["block_above" if follows.block == index - 1 else "block_earlier"]
    return name if link is None else f"[{name}]({link}#{note_anchor(follows.block)})"


# ------------------------------------------------------------------ the versions page
def _ranges(results: list[PageResult], words: dict[str, str]) -> tuple[str, str]:
    """The releases the code runs on and those its output is identical on, as spans ("—": none)."""
    runs = [result.version for result in results if result.runs]
    same = [result.version for result in results if result.state == "same"]
    return version_span(runs) or words["none"], version_span(same) or words["none"]


def matrix(language: str, page: Path, titles: dict[str, str]) -> str:
    """The versions page's table (three columns, so that it reads on a phone) and, per page, where it differs."""
    words = strings("torch_versions", language)
    rows = [f"| {words['page']} | {words['runs']} | {words['identical']} |", "|---|---|---|"]
    details = [f"## {words['per_page']} {{ #where-each-page-differs }}", "", words["per_page_intro"], ""]
    for source in (Path("docs", language, page) for page in titles):  # in the order of the navigation
        if not any(block.executed for block in parse(ROOT / source)):
            continue
        results = page_results(source)
        target = Path(source).relative_to(Path(page).parent).as_posix()
        title = titles[Path(source).relative_to(Path("docs", language)).as_posix()]
        runs, same = _ranges(results, words)
        if all(result.state == "not checked" for result in results):
            runs = same = words["not checked"]
        anchor = "page-" + Path(source).relative_to(Path("docs", language)).with_suffix("").as_posix().replace("/", "-")
        rows.append(f"| [{title}](#{anchor}) | {runs} | {same} |")
        details += _differences(source, results, language, title, target, anchor)
    return "\n".join([*rows, "", words["legend"], "", *details])


def _differences(source, results, language, title, target, anchor) -> list[str]:
    words = strings("torch_versions", language)
    lines = [f"### [{title}]({target}) {{ #{anchor} }}", ""]
    span, running = unchanged_range(results), running_range(results)
    if all(result.state == "same" for result in results):
        return [*lines, words["all_same"], ""]
    if span and running:
        lines += [words["page_same"].format(same=_span_text(span)) if span == running
                  else words["page_ranges"].format(runs=_span_text(running), same=_span_text(span)), ""]
    notes = block_notes(source, language, target if source.suffix == ".md" else None)
    blocks = [block for block in parse(ROOT / source) if block.executed]
    for index, note in notes.items():  # one line per block, led by the section it sits in
        section = section_of(ROOT / source, blocks[index])
        where = (f"[{plain_title(section.title)}]({target}#{section.anchor})" if section
                 else f"[{words['page_start']}]({target})")
        lines.append(f"- {where}{words['colon']}{note.title}")
    groups: dict[tuple, list[str]] = {}
    for result in results:
        if result.state == "not run":
            groups.setdefault(("cannot", result.reason), []).append(result.version)
        elif result.state == "not checked":
            groups.setdefault(("unchecked",), []).append(result.version)
    for key, versions in groups.items():
        span_text = version_span(versions)
        text = (words["cannot"].format(versions=span_text, reason=key[1]) if key[0] == "cannot"
                else words["unchecked"].format(versions=span_text))
        lines.append(f"- {text}")
    return [*lines, ""]


def _span_text(span: tuple[str, str]) -> str:
    first, last = span
    return first if first == last else f"{first}–{last}"


def changes_list(language: str) -> str:
    """The behaviour changes the current data shows (an unbacked one is left out until the data backs it)."""
    since = strings("torch_versions", language)["since"]
    return "\n".join(f'- <span id="change-{change.id}"></span>{since.format(since=change.since)} '
                     f"{change.text[language]}" for change in changes() if backed(change))
