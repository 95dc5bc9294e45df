"""Tooltips for the core terms (leaf, non-leaf, ``grad_fn``, hook, saved tensor, computation graph).

Python-Markdown's ``abbr`` (docs/hooks/glossary_abbreviations.py) needs word
boundaries and skips code, so it cannot reach 叶子节点 inside a run of Chinese
characters nor `grad_fn` in inline code. This hook adds ``<abbr title>``
itself, on the rendered HTML: the first occurrence of each term on a page, in
its paragraphs, lists and table cells (never in code blocks, headings, links or
the glossary itself, which defines them in full). Once per page, not per
section: the site's pages are short, and one dotted term per page is a help
where one in every section would be noise. The terms and their words are
docs/data/tooltips.yml; the tooltip is the glossary's definition; the matching
is ``sitepages.term_tooltips``.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from sitepages import LANGUAGES, language_of
from sitepages.term_tooltips import add_tooltips, matcher


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    source = page.file.src_uri
    head, _, rest = source.partition("/")
    if not source.endswith(".md") or (rest if head in LANGUAGES else source) == "glossary.md":
        return html
    return add_tooltips(html, matcher(language_of(source), Path(config.docs_dir)))
