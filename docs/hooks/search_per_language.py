"""One search index per language, as a MkDocs hook (see mkdocs.yml).

mkdocs-static-i18n writes one /search/search_index.json holding the pages of
both languages, and Material's search has no language filter: searching "hook"
on the English site listed Chinese pages first (tests/browser/test_search.py).
Here the index is split after the last build: English pages stay in
/search/search_index.json, the pages of every other locale go to
/<locale>/search/search_index.json with their locations made relative to
/<locale>/, and the pages of that locale point Material's `base` (where its
search fetches the index and resolves result links) at /<locale>/.

Chinese pages also get the site's terms (the jieba dictionary the index was
segmented with) in their configuration, as ``search_terms``: the browser cuts
a query with them (docs/assets/javascripts/search-segmentation.js).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.pages import Page

from sitepages import DEFAULT_LANGUAGE, LANGUAGES

_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S)


def _terms(config: MkDocsConfig) -> list[str]:
    """The words jieba keeps whole, from the search plugin's user dictionary (one "word freq tag" a line)."""
    search = config.plugins.get("material/search") or config.plugins["search"]
    return _read_terms(Path(config.config_file_path).parent / search.config["jieba_dict_user"])


@functools.cache
def _read_terms(dictionary: Path) -> list[str]:
    return [line.split()[0] for line in dictionary.read_text(encoding="utf-8").splitlines() if line.strip()]


def _rebase(output: str, config: MkDocsConfig) -> str:
    locale = config.theme["language"]
    if locale == DEFAULT_LANGUAGE:
        return output

    def rebase(match: re.Match) -> str:
        app = json.loads(match.group(2))
        app["base"] = f"{app['base'].rstrip('/')}/{locale}/"  # a folder: Material resolves URLs against it
        app["search_terms"] = _terms(config)
        return match.group(1) + json.dumps(app, sort_keys=True) + match.group(3)

    return _CONFIG.sub(rebase, output, count=1)


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    return _rebase(output, config)


def on_post_template(output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
    return _rebase(output_content, config) if template_name == "404.html" else output_content


@event_priority(-200)  # after mkdocs-static-i18n (-100) has built every language and merged the index
def on_post_build(*, config: MkDocsConfig) -> None:
    if config.plugins["i18n"].building:
        return  # a nested build of another language: the merged index is not written yet
    site = Path(config.site_dir)
    merged = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    prefixes = {locale: f"{locale}/" for locale in LANGUAGES if locale != DEFAULT_LANGUAGE}
    for locale, prefix in prefixes.items():
        docs = [
            {**doc, "location": doc["location"].removeprefix(prefix)}
            for doc in merged["docs"] if doc["location"].startswith(prefix)
        ]
        (site / locale / "search").mkdir(parents=True, exist_ok=True)
        (site / locale / "search" / "search_index.json").write_text(
            json.dumps({**merged, "docs": docs}, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    own = [doc for doc in merged["docs"] if not doc["location"].startswith(tuple(prefixes.values()))]
    (site / "search" / "search_index.json").write_text(
        json.dumps({**merged, "docs": own}, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
