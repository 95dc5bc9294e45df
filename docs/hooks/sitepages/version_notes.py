"""What other torch releases do with a page's code, written for the site: notes at blocks, and the versions page.

From the version matrix (``torch_versions``): ``block_notes`` gives, per
executed block that prints something else, raises, or writes to stderr on
some release, the lines of a note that shows, per group of releases that
behave alike, exactly what they print or raise. ``matrix`` writes the table of
pages against releases and, per page, where it differs; ``changes_list`` the
behaviour changes (docs/data/torch-versions/changes.yml) the data backs.
Releases with no data for the page's current code are never shown as
agreeing: they are "not yet checked". All of it is Markdown, in the page's
language; docs/hooks/torch_version_notes.py puts it into the pages.
"""

from __future__ import annotations

from pathlib import Path

from . import parse
from .layout import DEFAULT_LANGUAGE, ROOT, twin
from .markdown_page import parse_page
from .strings import strings
from .torch_versions import backed, changes, page_results, releases, version_span


def _fence(text: str, indent: str) -> list[str]:
    ticks = "````" if "```" in text else "```"
    return [f"{indent}{ticks}text", *(f"{indent}{line}" if line else "" for line in text.rstrip("\n").split("\n")),
            f"{indent}{ticks}"]


def block_notes(source: Path, language: str) -> dict[int, list[str]]:
    """Index of an executed block -> the lines of its note (none for a block every release agrees on)."""
    words = strings("torch_versions", language)
    results = [result for result in page_results(source) if result.state in ("same", "differs")]
    notes = {}
    blocks = [block for block in parse_page(ROOT / twin(source, DEFAULT_LANGUAGE)) if block.executed]
    for index in range(len(blocks)):
        groups: dict[tuple[str, str, str], list[str]] = {}
        for result in results:
            block = result.blocks[index]
            if block.state in ("same", "not run"):
                continue
            groups.setdefault((block.state, block.text, block.stderr), []).append(result.version)
        lines: list[str] = []
        for (state, text, stderr), versions in groups.items():
            plural = "" if len(versions) > 1 else "s"
            span = version_span(versions)
            if state == "raises":
                lines += [words["raises"].format(versions=span, s=plural), "", *_fence(text, ""), ""]
            elif text != blocks[index].shown:
                lines += [words["print"].format(versions=span, s=plural), "", *_fence(text, ""), ""]
            if stderr:
                lines += [words["stderr"].format(versions=span, s=plural), "", *_fence(stderr, ""), ""]
        if lines:
            notes[index] = lines
    return notes


def matrix(language: str, page: Path, titles: dict[str, str]) -> str:
    words = strings("torch_versions", language)
    versions = [".".join(v.split(".")[:2]) for v in releases()]
    rows = ["| " + " | ".join([words["page"], *versions]) + " |", "|---" * (len(versions) + 1) + "|"]
    details = [f"## {words['per_page']} {{ #where-each-page-differs }}", ""]
    for source in (Path("docs", language, page) for page in titles):  # in the order of the navigation
        if not any(block.executed for block in _parsed(source)):
            continue
        results = page_results(source)
        target = Path(source).relative_to(Path(page).parent).as_posix()
        cells = [str(len(r.differing)) if r.state == "differs" else words[r.state] for r in results]
        title = titles[Path(source).relative_to(Path("docs", language)).as_posix()]
        rows.append(f"| [{title}]({target}) | " + " | ".join(cells) + " |")
        details += _differences(source, results, language, title, target)
    return "\n".join([*rows, "", words["legend"], "", *details])


def _parsed(source: Path):
    return parse(ROOT / source)


def _differences(source, results, language, title, target) -> list[str]:
    words = strings("torch_versions", language)
    anchor = "page-" + Path(source).relative_to(Path("docs", language)).with_suffix("").as_posix().replace("/", "-")
    lines = [f"### [{title}]({target}) {{ #{anchor} }}", ""]
    groups: dict[tuple, list[str]] = {}
    blocks = [block for block in _parsed(twin(source, DEFAULT_LANGUAGE)) if block.executed]
    for result in results:
        if result.state == "differs":
            where = words["comma"].join(words["cell"].format(n=blocks[i].cell) if blocks[i].line is None
                                        else words["line"].format(n=blocks[i].line) for i in result.differing)
            key = ("differs", len(result.differing), where)
        elif result.state == "not run":
            key = ("cannot", result.reason)
        elif result.state == "not checked":
            key = ("unchecked",)
        else:
            continue
        groups.setdefault(key, []).append(result.version)
    if not groups:
        return [*lines, words["all_same"], ""]
    for key, versions in groups.items():
        span = version_span(versions)
        if key[0] == "differs":
            count = key[1]
            text = words["differs"].format(versions=span, count=count, s="" if count == 1 else "s",
                                           verb="s" if count == 1 else "", lines=key[2])
        elif key[0] == "cannot":
            text = words["cannot"].format(versions=span, reason=key[1])
        else:
            text = words["unchecked"].format(versions=span)
        lines.append(f"- {text}")
    return [*lines, ""]


def changes_list(language: str) -> str:
    """The behaviour changes the current data shows (an unbacked one is left out until the data backs it)."""
    since = strings("torch_versions", language)["since"]
    return "\n".join(f'- <span id="change-{change.id}"></span>{since.format(since=change.since)} '
                     f"{change.text[language]}" for change in changes() if backed(change))
