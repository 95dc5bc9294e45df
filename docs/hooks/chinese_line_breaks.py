"""Remove the spaces a Chinese page's source leaves between Chinese characters, so browsers show none.

Chinese pages are wrapped in the source like the English ones, and a line
break inside a paragraph becomes a space in HTML, which Chromium renders
between two Chinese characters ("记下了 产生它的运算"), where Chinese text
has none. The same happens when the break sits next to a link, bold text or
a quotation mark ("原因见 叶子节点", "3—— 再次提醒"), and with a space typed
after a full stop ("模型。 一个"). Every run of whitespace between two
full-width characters (CJK characters and punctuation, curly quotes, dashes,
ellipses) is removed, also across inline tags between them; a space between
Chinese and Latin text or code stays. Code (<pre>, <code>) is left alone.
Done on the HTML with a regular expression: the page's HTML is only scanned
for text between tags, and parsing every page would cost the build seconds.
tests/test_chinese_pages.py checks the built pages.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

# Full-width: CJK punctuation, ideographs and forms; curly quotes, dashes and ellipses around them.
WIDE = "\u2014\u2018-\u201f\u2026\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_INLINE_TAGS = r"(?:</?(?:a|strong|em|b|i|span|abbr|mark|sup|sub)\b[^>]*>)*"
_SPACE_BETWEEN_WIDE = re.compile(rf"(?<=[{WIDE}])({_INLINE_TAGS})\s+({_INLINE_TAGS})(?=[{WIDE}])")
_CODE = re.compile(r"(<pre\b.*?</pre>|<code\b.*?</code>)", re.DOTALL)


def join_wide_text(html: str) -> str:
    """The HTML without whitespace between two full-width characters, except inside <pre> and <code>."""
    parts = _CODE.split(html)
    # Odd indexes are the code blocks that split() kept.
    return "".join(part if i % 2 else _SPACE_BETWEEN_WIDE.sub(r"\1\2", part) for i, part in enumerate(parts))


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if getattr(page.file, "locale", None) == "zh":
        return join_wide_text(html)
    return html
