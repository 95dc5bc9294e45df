"""What other torch releases do with a page's code: notes at the blocks that differ, and the versions page.

The Markdown comes from ``sitepages.version_notes`` (read from the version
matrix, docs/data/torch-versions/); this hook puts it into the pages: after
each executed block that prints something else, raises, or writes to stderr
on some release, a collapsed note whose title says in one line what differs
(an id in it, ``torch-note-N``, lets another note name it as the cause); and on
the "Torch versions" page (``docs/LANG/torch-versions.md``), in place of its two
marker lines, the table of pages and releases with the navigation's titles and
where each page differs, and the list of behaviour changes.

The matrix and its per-page lists repeat every page's title: in the search
index they outranked the pages themselves ("grad cam" found the versions page
second). They are marked ``data-search-exclude`` (Material's search skips such
an element, and a heading so marked drops its section); the behaviour changes,
written as prose, stay searchable.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import get_data

from sitepages import ROOT, language_of, nav_pages, parse_page
from sitepages.torch_versions import releases
from sitepages.version_notes import block_notes, changes_list, matrix, note_anchor

MATRIX = "<!-- torch-version-matrix -->"
CHANGES = "<!-- torch-version-changes -->"
_HEADING = re.compile(r"^(#{2,6} .*\{ #[\w-]+)( \})$", re.M)


def unsearchable(markdown: str) -> str:
    """The matrix's Markdown with its table, the table's legend and its headings (so their sections) kept out
    of the search index."""
    if not markdown.startswith("|"):
        raise ValueError(f"the version matrix must start with its table, not {markdown[:40]!r}")
    heading = re.search(r"^#{2,6} ", markdown, re.M)
    head, rest = (markdown[: heading.start()], markdown[heading.start():]) if heading else (markdown, "")
    marked = _HEADING.sub(r"\1 data-search-exclude\2", rest)
    return f"<div data-search-exclude markdown>\n\n{head.rstrip()}\n\n</div>\n\n{marked}"


def _with_notes(markdown: str, source: Path, language: str) -> str:
    notes = block_notes(source, language)
    if not notes:
        return markdown
    lines = markdown.split("\n")
    # MkDocs hands the hook the page without its front matter: the lines it removed come first in the file.
    text = (ROOT / source).read_text(encoding="utf-8")
    removed = text[: len(text) - len(get_data(text)[0])].count("\n")
    blocks = [block for block in parse_page(ROOT / source) if block.executed]
    for index in sorted(notes, reverse=True):  # bottom up: earlier line numbers stay valid
        block = blocks[index]
        shown = block.warnings or block.output  # the note goes after the last fence of the block
        after = (shown.end if shown else block.end) - removed
        if lines[after - 1].strip() != block.fence and not (shown and lines[after - 1].strip().startswith("`")):
            raise ValueError(f"{source}:{after + removed}: a version note must follow the end of a fence")
        indent = " " * block.indent
        title = f'<span id="{note_anchor(index)}"></span>{notes[index].title}'
        note = ["", f'{indent}??? note "{title}"', ""]
        note += [f"{indent}    {line}" if line else "" for line in notes[index].body]
        lines[after:after] = note
    return "\n".join(lines)


def nav_titles(config: MkDocsConfig, language: str) -> dict[str, str]:
    """Page (relative to docs/LANG) -> its title in the navigation of mkdocs.yml, in that language."""
    i18n = config.plugins["i18n"].config
    translations = next((lang.nav_translations or {} for lang in i18n.languages if lang.locale == language), {})
    return {target: translations.get(title, title) for target, title in nav_pages(config.nav).items()}


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    source = (Path(config.docs_dir) / page.file.src_uri).relative_to(ROOT)
    language = language_of(page.file.src_uri)
    if MATRIX in markdown:
        table = unsearchable(matrix(language, source, nav_titles(config, language)))
        markdown = markdown.replace(MATRIX, table).replace(CHANGES, changes_list(language))
    if source.suffix == ".md" and releases():
        markdown = _with_notes(markdown, source, language)
    return markdown
