"""Links are forever: every URL of docs/data/published-urls.yml still leads to a page that has its anchors.

The list holds every page URL the site has published, in both languages, with
the heading ids its page had (``python -m tests.tools published_urls --write``
adds to it, never removes). In the built site each URL must be a page, or a
redirect page (the mkdocs-redirects plugin, mkdocs.yml) to one; and every
anchor listed for it must be an id on the page where the reader lands: the
redirect page's script carries the reader's #anchor on to the new URL. What to
do when one is missing is in .github/CONTRIBUTING.md, "Moving or splitting a page".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

from sitepages import DEFAULT_LANGUAGE, LANGUAGES, ROOT, language_of
from sitepages.data import load
from tests.site_build import parsed, redirect_target
from tests.tools.published_urls import LIST, listed, merged

URLS = listed().value["urls"]
HOPS = 5  # redirects followed before a chain counts as a loop
HOOK = ROOT / "docs" / "hooks" / "i18n_redirects.py"


def old_source(url: str) -> str:
    """The redirect map's key for a URL: its path without the language folder, as nav names pages."""
    parts = url.strip("/").split("/") if url != "/" else []
    if parts[:1] and parts[0] in LANGUAGES:
        parts = parts[1:]
    return "/".join(parts) + ".md" if parts else "index.md"


def landing(site: Path, url: str) -> tuple[str, str, list[str]]:
    """Where a reader who opens ``url`` lands: (URL path, the redirect's own #section or "", the hops).
    Raises AssertionError, saying what to do, where the URL leads nowhere."""
    hops, section = [], ""
    while True:
        page = site / url.lstrip("/") / "index.html"
        if not page.is_file():
            start = hops[0] if hops else url
            if hops:
                raise AssertionError(f"{start} redirects to {url}, which is not in the built site: "
                                     f"fix its entry under the redirects plugin in mkdocs.yml")
            raise AssertionError(
                f"{url}: no page and no redirect. The URL is published ({LIST.relative_to(ROOT)}) and must "
                f"keep working: if its page moved, add `{old_source(url)}: NEW/PATH.md` to redirect_maps of the "
                "redirects plugin in mkdocs.yml (one entry redirects both languages); if it was split, "
                "redirect it to the page that keeps its first sections")
        target = redirect_target(page.read_text(encoding="utf-8"))
        if target is None:
            return url, section, hops
        if urlsplit(target).scheme:
            raise AssertionError(f"{url} redirects outside the site, to {target}: its anchors cannot be checked")
        hops.append(url)
        if len(hops) > HOPS:
            raise AssertionError(f"{hops[0]}: more than {HOPS} redirects in a row: {' -> '.join(hops)}")
        parts = urlsplit(urljoin(f"http://site{url}", target))
        url, section = parts.path, parts.fragment


def problems(site: Path, url: str, anchors: list[str]) -> list[str]:
    """What is wrong with one listed URL and its anchors in a built site, one line each, with what to do."""
    try:
        final, section, hops = landing(site, url)
    except AssertionError as problem:
        return [str(problem)]
    via = f" ({url} redirects there)" if hops else ""
    # Any element's id takes the reader there, not only a heading's (the list holds the headings').
    page = parsed((site / final.lstrip("/") / "index.html").read_text(encoding="utf-8"))
    ids = {element["id"] for element in page.find_all(id=True)}
    found = []
    if section:
        if section not in ids:
            found.append(f"{url}: redirects to {final}#{section}, which has no element with the id {section!r}")
        found += [f"{url}#{anchor}: lost: {url} redirects to a section ({final}#{section}), and the redirect "
                  f"page appends #{anchor} after #{section}. Redirect to the page, not a section, and keep "
                  f"{{ #{anchor} }} there" for anchor in anchors]
        return found
    found += [
        f"{url}#{anchor}: no id {anchor!r} on {final}{via}. Give the heading that now holds that section "
        f"the old id (`## Title {{ #{anchor} }}`), or, if the section moved to another page, keep a short "
        f"section with that id here that links to it"
        for anchor in anchors if anchor not in ids
    ]
    return found


@pytest.mark.parametrize("url", list(URLS), ids=str)
def test_published_url_leads_to_a_page_with_its_anchors(built_site, url):
    site, result = built_site
    assert result.returncode == 0, "the site did not build; see test_mkdocs_build_strict_has_no_warnings"
    found = problems(site, url, URLS[url])
    assert not found, "\n".join(found)


def test_the_list_holds_both_languages_and_their_home_pages():
    assert {"/", "/zh/"} <= set(URLS), f"{LIST.relative_to(ROOT)} lacks a home page"
    for language in LANGUAGES:
        count = sum(language_of(url) == language for url in URLS)
        assert count >= 30, f"only {count} URLs of {language} are listed"
    assert all(URLS.values()), [url for url, anchors in URLS.items() if not anchors]


# --- the check fails where it should: a scratch site -------------------------------------------

def _page(site: Path, url: str, *ids: str) -> None:
    page = site / url.lstrip("/") / "index.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    headings = "".join(f'<h2 id="{anchor}">{anchor}</h2>' for anchor in ids)
    page.write_text(f"<html><head><title>t</title></head><body><article>{headings}</article></body></html>",
                    encoding="utf-8")


def _redirect(site: Path, old_url: str, target: str) -> None:
    """A redirect page written by the plugin's own code, as its on_post_build writes it."""
    from mkdocs_redirects.plugin import write_html

    write_html(str(site), old_url.lstrip("/") + "index.html", target)


@pytest.fixture
def site(tmp_path):
    _page(tmp_path, "/kept/", "intro", "details")
    _page(tmp_path, "/zh/new/place/", "intro", "details")
    _redirect(tmp_path, "/zh/old/", "../new/place/")
    return tmp_path


def test_a_removed_page_is_reported_with_the_redirect_to_add(site):
    [problem] = problems(site, "/zh/training/gone/", ["intro"])
    assert problem.startswith("/zh/training/gone/: no page and no redirect.")
    assert "add `training/gone.md: NEW/PATH.md` to redirect_maps" in problem


def test_a_removed_anchor_is_reported_with_the_id_to_keep(site):
    assert problems(site, "/kept/", ["intro", "details"]) == []
    [problem] = problems(site, "/kept/", ["intro", "old-section"])
    assert problem.startswith("/kept/#old-section: no id 'old-section' on /kept/. Give the heading")
    assert "`## Title { #old-section }`" in problem


def test_a_redirect_leads_to_the_new_page_and_its_anchors_are_checked_there(site):
    assert problems(site, "/zh/old/", ["intro", "details"]) == []
    [problem] = problems(site, "/zh/old/", ["intro", "summary"])
    assert problem.startswith("/zh/old/#summary: no id 'summary' on /zh/new/place/ (/zh/old/ redirects there)")


def test_a_redirect_to_a_section_loses_the_anchors_and_a_broken_one_is_reported(site):
    _redirect(site, "/to-section/", "../kept/#details")
    assert problems(site, "/to-section/", []) == []
    [problem] = problems(site, "/to-section/", ["intro"])
    assert problem.startswith("/to-section/#intro: lost: /to-section/ redirects to a section (/kept/#details)")
    _redirect(site, "/nowhere/", "../missing/")
    assert problems(site, "/nowhere/", []) == [
        "/nowhere/ redirects to /missing/, which is not in the built site: "
        "fix its entry under the redirects plugin in mkdocs.yml"]


def test_the_tool_only_adds():
    old = {"/a/": ["one", "gone"], "/moved/": ["x"]}
    urls, added = merged(old, {"/a/": ["one", "two"], "/b/": ["three"]})
    assert urls == {"/a/": ["one", "gone", "two"], "/b/": ["three"], "/moved/": ["x"]}
    assert added == ["/a/#two: new anchor", "/b/: new URL, with 1 anchors"]


# --- the real plugin and hook, on a two-language scratch site ----------------------------------

def _scratch_build(tmp_path: Path, entries: dict[str, str], hook: bool = True) -> subprocess.CompletedProcess:
    """A two-page site in both languages, configured as mkdocs.yml configures i18n, the redirects plugin
    (with ``entries``) and, unless ``hook`` is False, docs/hooks/i18n_redirects.py; built strict."""
    for language in LANGUAGES:
        for name, body in {"index.md": "# Home\n", "basics/new.md": "# New\n\n## Kept section { #kept }\n"}.items():
            (tmp_path / "docs" / language / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "docs" / language / name).write_text(body, encoding="utf-8")
    i18n = {"docs_structure": "folder", "fallback_to_default": False,
            "languages": [{"locale": language, "name": language, "default": language == DEFAULT_LANGUAGE,
                           "build": True} for language in LANGUAGES]}
    config = {"site_name": "scratch", "docs_dir": "docs", "theme": "mkdocs", "markdown_extensions": ["attr_list"],
              "hooks": [str(HOOK)] if hook else [],
              "plugins": [{"i18n": i18n}, {"redirects": {"redirect_maps": entries}}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def test_one_redirect_entry_makes_a_moved_page_pass_in_both_languages(tmp_path):
    """The page basics/old.md moved to basics/new.md: without an entry both of its URLs fail; with the one
    entry, both redirect to their own language's new page, and its anchor is found there."""
    listed_urls = {"/basics/old/": ["kept"], "/zh/basics/old/": ["kept"]}
    result = _scratch_build(tmp_path / "none", {})
    assert result.returncode == 0, result.stderr
    for url, anchors in listed_urls.items():
        assert "no page and no redirect" in problems(tmp_path / "none" / "site", url, anchors)[0]

    result = _scratch_build(tmp_path / "moved", {"basics/old.md": "basics/new.md"})
    assert result.returncode == 0, result.stderr
    site = tmp_path / "moved" / "site"
    for url, anchors in listed_urls.items():
        assert problems(site, url, anchors) == [], url
    assert landing(site, "/basics/old/")[0] == "/basics/new/"
    assert landing(site, "/zh/basics/old/")[0] == "/zh/basics/new/"
    assert problems(site, "/basics/old/", ["gone"])[0].startswith("/basics/old/#gone: no id 'gone' on /basics/new/")


def test_without_the_hook_an_entry_fails_the_build(tmp_path):
    """Why docs/hooks/i18n_redirects.py exists: the plugin alone looks the target up before
    mkdocs-static-i18n has placed the pages, so the strict build stops."""
    result = _scratch_build(tmp_path, {"basics/old.md": "basics/new.md"}, hook=False)
    assert result.returncode != 0 and "Redirect target 'basics/new.md' does not exist" in result.stderr, \
        result.stderr


def test_the_scratch_site_is_configured_as_the_site():
    """The scratch builds above stand for the site: i18n as mkdocs.yml sets it, the hook and the plugin."""
    config = load(ROOT / "mkdocs.yml").value
    plugins = [next(iter(plugin)) if isinstance(plugin, dict) else plugin for plugin in config["plugins"]]
    i18n = config["plugins"][plugins.index("i18n")]["i18n"]
    assert (i18n["docs_structure"], i18n["fallback_to_default"]) == ("folder", False)
    assert "redirects" in plugins and str(HOOK.relative_to(ROOT)) in config["hooks"]
