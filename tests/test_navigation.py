"""Adding a page is safe: every page is in the navigation, and every navigation title is translated.

A page missing from ``nav`` in mkdocs.yml is built but reachable by no menu;
a title missing from the Chinese ``nav_translations`` shows English in the
Chinese navigation. Neither fails the build, so this test does, saying what
to add where. Pages that mkdocs.yml's ``not_in_nav`` names (the error index's
entries, reached from the troubleshooting page) are the exception.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from mkdocs.config import load_config

from sitepages import DEFAULT_LANGUAGE, ROOT, page_id, sources

WHERE_TRANSLATIONS = "mkdocs.yml, plugins > i18n > languages > {locale} > nav_translations"


@pytest.fixture(scope="module")
def config():
    return load_config(str(ROOT / "mkdocs.yml"))


def nav_entries(nav: list) -> list[tuple[str, str | None]]:
    """(title, page or None for a section) of every entry of the navigation, depth first."""
    entries = []
    for item in nav:
        if isinstance(item, str):
            entries.append(("", item))
            continue
        [(title, value)] = item.items()
        if isinstance(value, list):
            entries.append((title, None))
            entries += nav_entries(value)
        else:
            entries.append((title, value))
    return entries


def missing_from_nav(nav: list, pages: list[str]) -> list[str]:
    listed = {page for _, page in nav_entries(nav) if page}
    return [
        f"{page} is in no menu: add it to nav in mkdocs.yml, e.g.  - Its title: {page}"
        for page in pages if page not in listed
    ]


def nav_pages_that_do_not_exist(nav: list, pages: list[str]) -> list[str]:
    return [
        f"nav in mkdocs.yml lists {page!r} ({title}), which is not a page of docs/{DEFAULT_LANGUAGE}/"
        for title, page in nav_entries(nav) if page and page not in pages
    ]


def untranslated_titles(nav: list, translations: dict[str, str], locale: str) -> list[str]:
    return untranslated([title for title, _ in nav_entries(nav)], translations, locale)


def untranslated(titles: list[str], translations: dict[str, str], locale: str) -> list[str]:
    return [
        f"the nav title {title!r} has no {locale} translation: add  {title!r}: <{locale} title>  "
        f"to {WHERE_TRANSLATIONS.format(locale=locale)}"
        for title in titles if title and title not in translations
    ]


def titles_above(nav: list, page: str, trail: tuple[str, ...] = ()) -> list[str] | None:
    """The titles a reader follows to the page (its sections', outermost first, then its own); None if unlisted."""
    for item in nav:
        if isinstance(item, str):
            if item == page:
                return [*trail]
            continue
        [(title, value)] = item.items()
        if isinstance(value, list):
            found = titles_above(value, page, (*trail, title))
            if found is not None:
                return found
        elif value == page:
            return [*trail, title]
    return None


DEFAULT_SOURCES = sources(DEFAULT_LANGUAGE)


def kept_out_of_nav(config, page: str) -> bool:
    """Whether mkdocs.yml's ``not_in_nav`` (gitignore patterns, relative to docs/LANG/) names the page."""
    return config.not_in_nav is not None and config.not_in_nav.match_file(page)


def _in_nav(source) -> str:
    """docs/en/a/b.md -> a/b.md, as nav in mkdocs.yml names it."""
    return str(PurePosixPath(page_id(source)).relative_to(DEFAULT_LANGUAGE))


@pytest.mark.parametrize("source", DEFAULT_SOURCES, ids=page_id)
def test_page_is_in_the_navigation_under_translated_titles(config, source):
    """Per page (``pytest -k PAGE`` selects it): in a menu, and every title on the way to it translated."""
    page = _in_nav(source)
    if kept_out_of_nav(config, page):
        assert page not in [p for _, p in nav_entries(config.nav)], f"{page} is in nav and in not_in_nav"
        return
    problems = missing_from_nav(config.nav, [page])
    if not problems:
        for language in config.plugins["i18n"].config.languages:
            if not language.default:
                problems += untranslated(titles_above(config.nav, page), language.nav_translations or {},
                                         language.locale)
    assert not problems, "\n".join(problems)


def test_every_navigation_entry_is_a_page(config):
    problems = nav_pages_that_do_not_exist(config.nav, [_in_nav(source) for source in DEFAULT_SOURCES])
    assert not problems, "\n".join(problems)


# --- the checks fail on a broken navigation ----------------------------------------


NAV = [{"Home": "index.md"}, {"Basics": [{"Leaf nodes": "leaf-nodes.md"}, {"New page": "new.md"}]}]


def test_a_page_missing_from_nav_is_named_with_what_to_add():
    assert missing_from_nav(NAV, ["index.md", "leaf-nodes.md", "new.md", "forgotten.md"]) == [
        "forgotten.md is in no menu: add it to nav in mkdocs.yml, e.g.  - Its title: forgotten.md"
    ]
    assert nav_pages_that_do_not_exist(NAV, ["index.md", "leaf-nodes.md"]) == [
        "nav in mkdocs.yml lists 'new.md' (New page), which is not a page of docs/en/"
    ]


def test_the_titles_above_a_page_are_its_sections_and_its_own():
    assert titles_above(NAV, "new.md") == ["Basics", "New page"]
    assert titles_above(NAV + ["bare.md"], "bare.md") == []
    assert titles_above(NAV, "forgotten.md") is None


def test_a_title_without_translation_is_named_with_where_to_add_it():
    problems = untranslated_titles(NAV, {"Home": "首页", "Basics": "基础", "Leaf nodes": "叶子节点"}, "zh")
    assert problems == [
        "the nav title 'New page' has no zh translation: add  'New page': <zh title>  to "
        "mkdocs.yml, plugins > i18n > languages > zh > nav_translations"
    ]
