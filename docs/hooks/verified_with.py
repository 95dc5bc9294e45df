"""Under the title of every page with code: the torch it was verified with, the releases it runs on, its last change.

The version is the torch pin in pyproject.toml (``sitepages.pins``): the
suite asserts every output against that version, so it is written nowhere
else. The releases come from the version matrix (``sitepages.torch_versions``),
as two claims, each the widest run of consecutive releases around the pin:
those on which the code runs (no block raises) and those on which its output
is identical (every block prints what the page shows), linked to the page's
entry on the "Torch versions" page; a page whose current code has no data says
so instead. A page without executed code carries no such line. The date is the
last commit that changed the page's source, from
mkdocs-git-revision-date-localized-plugin (a page not committed yet shows the
build date); a page's outputs change only with its source.
"""

from __future__ import annotations

import html
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from sitepages import ROOT, language_of, page_url, parse
from sitepages.pins import pinned
from sitepages.strings import strings
from sitepages.torch_versions import page_results, releases, running_range, unchanged_range


def versions_part(source: Path, language: str, page_path: str, listed: bool = True) -> str:
    """The releases a page's code runs on, and those its output is identical on, as HTML ("" without data).

    ``listed``: the page has a section on the "Torch versions" page (it lists the pages of the navigation; the
    error index's entries are not among them), so its differences can be linked there."""
    if not releases():
        return ""
    words = strings("verified_with", language)
    results = page_results(source)
    span, running = unchanged_range(results), running_range(results)
    others = [result for result in results if result.version != pinned("torch").split("+")[0]]
    if span is None or running is None or all(result.state == "not checked" for result in others):
        return html.escape(words["unchecked"])

    def text(first_last: tuple[str, str]) -> str:
        first, last = first_last
        return words["range" if first != last else "only"].format(first=first, last=last)

    if span == running:
        claim = words["runs_and_same"].format(same=text(span))
    else:
        claim = words["runs_and_differs"].format(runs=text(running), same=text(span))
    claim = html.escape(claim)
    if all(result.state == "same" for result in results) or not listed:
        return claim
    anchor = "page-" + source.relative_to(Path("docs", language)).with_suffix("").as_posix().replace("/", "-")
    versions_page = page_url(Path("docs", language, "torch-versions.md"))
    link = get_relative_url(versions_page.lstrip("/") + "index.html", page_path.lstrip("/") + "index.html")
    others_link = f'<a href="{link}#{anchor}">{html.escape(words["others"])}</a>'
    return claim + html.escape(words["in_brackets"]).format(others_link)


def _nav_pages(config: MkDocsConfig) -> set[str]:
    """The pages of the navigation (relative to docs/LANG): those the "Torch versions" page has a section for."""
    found: set[str] = set()

    def walk(items) -> None:
        for item in items:
            for target in item.values() if isinstance(item, dict) else ():
                walk(target) if isinstance(target, list) else found.add(target)

    walk(config.nav or [])
    return found


def on_page_content(content: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    language = language_of(page.file.src_uri)
    words = strings("verified_with", language)
    source = (Path(config.docs_dir) / page.file.src_uri).relative_to(ROOT)
    if not any(block.executed for block in parse(ROOT / source)):
        return content  # nothing on the page ran: there is nothing to have verified
    parts = [html.escape(words["verified"].format(version=pinned("torch")))]
    listed = page.file.src_uri.partition("/")[2] in _nav_pages(config)
    versions = versions_part(source, language, page_url(source), listed)
    if versions:
        parts.append(versions)
    date = page.meta.get("git_revision_date_localized_raw_iso_date", "")
    if date:
        parts.append(html.escape(words["changed"].format(date=date)))
    tag = f'<p class="verified-with" data-search-exclude>{" · ".join(parts)}</p>'
    end = content.find("</h1>")
    return tag + content if end < 0 else content[: end + 5] + tag + content[end + 5 :]
