"""Give a notebook page's headings the same ids as its table of contents links.

mkdocs-jupyter builds the page from nbconvert's HTML, whose heading ids drop
every non-ASCII character (a Chinese heading gets id="" or a fragment of its
code), while it builds the table of contents with Python-Markdown's default
slugs ("#_1", "#_2", ...): the two disagree, so the contents links of a
notebook page lead nowhere, in both languages. Each heading (in page order)
and its contents entry get one id, made by the slugify the Markdown pages use
(pymdownx.slugs, lower case, Chinese kept), so a notebook's anchors read like
any other page's. tests/browser checks every link and anchor of every page.
"""

from __future__ import annotations

import html as html_lib
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from pymdownx.slugs import slugify

_SLUGIFY = slugify(case="lower")
_HEADING = re.compile(r'<h([1-6]) id="[^"]*">(.*?)</h\1>', re.S)
_ANCHOR_LINK = re.compile(r'<a class="anchor-link" href="#[^"]*">')


def _toc_items(toc):
    for item in toc:
        yield item
        yield from _toc_items(item.children)


def _text(heading_html: str) -> str:
    text = re.sub(r"<[^>]+>", "", _ANCHOR_LINK.split(heading_html)[0])
    return html_lib.unescape(text).strip()


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    items = list(_toc_items(page.toc))
    used: dict[str, int] = {}

    def new_id(match: re.Match) -> str:
        level, inner = match.group(1), match.group(2)
        slug = _SLUGIFY(_text(inner), "-") or "section"
        count = used.get(slug, 0)
        used[slug] = count + 1
        unique = slug if count == 0 else f"{slug}_{count}"
        index = sum(used.values()) - 1
        if index < len(items):
            items[index].id = unique
        inner = _ANCHOR_LINK.sub(f'<a class="anchor-link" href="#{unique}">', inner)
        return f'<h{level} id="{unique}">{inner}</h{level}>'

    html = _HEADING.sub(new_id, html)
    if sum(used.values()) != len(items):
        raise ValueError(
            f"{page.file.src_uri}: {sum(used.values())} headings in the notebook's HTML but "
            f"{len(items)} entries in its table of contents; their ids cannot be matched"
        )
    return html
