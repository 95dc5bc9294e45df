"""Links from the PyTorch names in the pages' prose to PyTorch's reference, with nothing fetched at build time.

Inline code in a paragraph, a list or a table cell that names a PyTorch API
(`torch.autograd.grad`, `retain_grad()`, `y.register_hook(...)`) becomes a
link to its page on docs.pytorch.org: the first one of each API on a page, as
the first mention is where a reader meets it; later ones stay plain, so that a
paragraph is not a row of links. Never in code blocks, headings, existing links
or the short answer's code (``sitepages.prose``). The names and their pages are
docs/data/api-links.yml, written and checked against the installed torch by
``python -m tests.tools api_links``; the build reads that file and nothing
else (no objects.inv, no network), so it works offline.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from sitepages import LANGUAGES
from sitepages.api_links import add_links, apis


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if not page.file.src_uri.endswith(".md"):
        return html
    return add_links(html, in_language(page.file.src_uri), apis(Path(config.docs_dir)))


def in_language(source: str) -> str:
    """A page's path in its language's folder: zh/intermediate/hooks.md -> intermediate/hooks.md."""
    head, _, rest = source.partition("/")
    return rest if head in LANGUAGES and rest else source
