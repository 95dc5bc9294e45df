"""Under every page's title: the torch version its outputs were verified with, and when the page last changed.

The version is the torch pin in pyproject.toml (``sitepages.pins``): the
suite asserts every output against that version, so it is written nowhere
else. The date is the last commit that changed the page's source, from
mkdocs-git-revision-date-localized-plugin (a page not committed yet shows
the build date); a page's outputs change only with its source.
"""

from __future__ import annotations

import html

from sitepages import language_of
from sitepages.pins import pinned

TEXT = {
    "en": "Verified with torch {version} (CPU) · last changed {date}",
    "zh": "本页输出已在 torch {version}（CPU 版）上验证 · 最后修改于 {date}",
}


def on_page_content(content: str, page, config, files) -> str:
    language = language_of(page.file.src_uri)
    date = page.meta.get("git_revision_date_localized_raw_iso_date", "")
    line = TEXT[language].format(version=pinned("torch"), date=date)
    if not date:
        line = line.split(" · ")[0]
    tag = f'<p class="verified-with" data-search-exclude>{html.escape(line)}</p>'
    end = content.find("</h1>")
    return tag + content if end < 0 else content[: end + 5] + tag + content[end + 5 :]
