"""The site builds without a single warning, and its search finds pages in both languages."""

import json
import os
import re
import subprocess
import sys
from collections import Counter
from urllib.parse import urljoin

import pytest

from docs_pages import ROOT


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    return site, result


def test_mkdocs_build_strict_has_no_warnings(built_site):
    _, result = built_site
    log = result.stdout + result.stderr
    warnings = [line for line in log.splitlines() if re.search(r"\b(WARNING|ERROR)\b", line)]
    assert result.returncode == 0 and not warnings, f"mkdocs build --strict failed:\n{log}"


def _search_index(built_site) -> dict:
    site, result = built_site
    assert result.returncode == 0, "the site did not build; see test_mkdocs_build_strict_has_no_warnings"
    return json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))


def _tokens(text: str, separator: re.Pattern) -> list[str]:
    text = re.sub(r"<[^>]+>", " ", text)  # the index stores HTML
    return [token.lower() for token in separator.split(text) if token]


def _ranking(index: dict, query: str, language: str) -> list[tuple[str, int]]:
    """Pages of one language ranked for the query, as Material's search matches it.

    Query and text are split with the index's own separator; a query term
    matches a word it is a prefix of (Material searches `term*`), every term
    must match, and a match in a title weighs as the index's title boost.
    """
    separator = re.compile(index["config"]["separator"])
    title_boost = int(index["config"]["fields"]["title"]["boost"])
    terms = _tokens(query, separator)
    scores: Counter = Counter()
    matched: dict[str, set] = {}
    for doc in index["docs"]:
        page = doc["location"].split("#")[0]
        if page.startswith("zh/") != (language == "zh"):
            continue
        title, text = _tokens(doc["title"], separator), _tokens(doc["text"], separator)
        for term in terms:
            hits = sum(w.startswith(term) for w in text) + title_boost * sum(w.startswith(term) for w in title)
            if hits:
                scores[page] += hits
                matched.setdefault(page, set()).add(term)
    return [(page, score) for page, score in scores.most_common() if matched[page] == set(terms)]


# (query, language, the page that must rank first)
TOP_RESULTS = [
    ("叶子节点", "zh", "zh/leaf-nodes/"),
    ("钩子", "zh", "zh/intermediate/hooks/"),
    ("中间变量", "zh", "zh/intermediate/"),
    ("retain_grad", "zh", "zh/intermediate/retain-grad/"),
    ("retain_grad", "en", "intermediate/retain-grad/"),
    ("hook", "en", "intermediate/hooks/"),
    ("hook", "zh", "zh/intermediate/hooks/"),
    ("leaf", "en", "leaf-nodes/"),
]


@pytest.mark.parametrize("query, language, page", TOP_RESULTS)
def test_search_ranks_the_right_page_first(built_site, query, language, page):
    ranking = _ranking(_search_index(built_site), query, language)
    assert ranking, f"searching {query!r} finds no {language} page at all"
    assert ranking[0][0] == page, f"searching {query!r}: expected {page} first, got {ranking[:4]}"


def test_search_finds_gradient_in_the_body_of_every_chinese_page(built_site):
    index = _search_index(built_site)
    pages = {doc["location"].split("#")[0] for doc in index["docs"] if doc["location"].startswith("zh/")}
    found = {page for page, _ in _ranking(index, "梯度", "zh")}
    assert pages and found == pages, f"梯度 is not found on: {sorted(pages - found)}"


def _built_pages(site) -> list[str]:
    """URL paths of the built content pages, e.g. '/', '/zh/leaf-nodes/'."""
    folders = [html.parent.relative_to(site).as_posix() for html in site.rglob("index.html")]
    return sorted("/" if folder == "." else f"/{folder}/" for folder in folders)


def test_language_switcher_links_every_page_to_its_twin(built_site):
    site, result = built_site
    assert result.returncode == 0, "the site did not build"
    pages = _built_pages(site)
    assert len(pages) >= 4
    wrong = []
    for page in pages:
        html = (site / page.strip("/") / "index.html").read_text(encoding="utf-8")
        links = dict(
            (lang, urljoin(f"http://127.0.0.1:8000{page}", href))
            for href, lang in re.findall(r'<a href="([^"]*)" hreflang="([^"]*)" class="md-select__link"', html)
        )
        english = page.removeprefix("/zh")
        expected = {"en": f"http://127.0.0.1:8000{english}", "zh": f"http://127.0.0.1:8000/zh{english}"}
        if links != expected:
            wrong.append(f"{page}: switcher links {links}, expected {expected}")
    assert not wrong, "\n".join(wrong)
