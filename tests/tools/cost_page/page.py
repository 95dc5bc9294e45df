"""The stored results written into docs/*/cost-of-methods.md, between its marker comments.

Each generated section sits between ``<!-- cost-of-methods:NAME -->`` and
``<!-- /cost-of-methods:NAME -->``; the prose around them is written by hand.
"""

from __future__ import annotations

import re

from sitepages import DOCS, LANGUAGES, ROOT
from tests.tools.cost_page.tables import load_results, sections

PAGES = {language: DOCS / language / "cost-of-methods.md" for language in LANGUAGES}


def _marked(name: str) -> re.Pattern:
    return re.compile(
        rf"(<!-- cost-of-methods:{re.escape(name)} -->\n)(.*?)(<!-- /cost-of-methods:{re.escape(name)} -->)",
        re.S,
    )


def page_sections(text: str) -> dict[str, str]:
    """What a page shows between each pair of markers."""
    return {
        m.group(1): m.group(2).removesuffix("\n")
        for m in re.finditer(r"<!-- cost-of-methods:([a-z-]+) -->\n(.*?)<!-- /cost-of-methods:\1 -->", text, re.S)
    }


def write_pages() -> None:
    cpu, gpu = load_results()
    for lang, page in PAGES.items():
        text = page.read_text(encoding="utf-8")
        for name, body in sections(cpu, gpu, lang).items():
            pattern = _marked(name)
            if not pattern.search(text):
                raise SystemExit(f"{page}: no <!-- cost-of-methods:{name} --> markers")
            text = pattern.sub(lambda m, body=body: m.group(1) + body + "\n" + m.group(3), text)
        page.write_text(text, encoding="utf-8")
        print(f"rewrote {page.relative_to(ROOT)}")
