"""Join Chinese lines that the Markdown source wraps, so browsers show no stray space.

Chinese pages are wrapped in the source like the English ones. A line break
inside a paragraph becomes a space in HTML, and Chromium renders that space
between two Chinese characters ("记下了 产生它的运算"), where Chinese text has
none. Removing the break between two full-width characters (outside <pre>)
fixes the rendered page and the search index, which is built from it.
"""

from __future__ import annotations

import re

# CJK punctuation, ideographs and full-width forms.
_WIDE = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]"
_BREAK_BETWEEN_WIDE = re.compile(rf"(?<={_WIDE})[ \t]*\n[ \t]*(?={_WIDE})")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.DOTALL)


def join_wide_lines(html: str) -> str:
    """Remove line breaks between two full-width characters, except inside <pre>."""
    parts = _PRE.split(html)
    # Odd indexes are the <pre> blocks that split() kept.
    return "".join(part if i % 2 else _BREAK_BETWEEN_WIDE.sub("", part) for i, part in enumerate(parts))


def on_page_content(html, page, config, files):
    if getattr(page.file, "locale", None) == "zh":
        return join_wide_lines(html)
    return html
