"""The site builds without a single warning, and its search finds pages in both languages."""

import bisect
import json
import re
from collections import Counter
from urllib.parse import urljoin

import pytest

from sitepages import ROOT, page_id, page_url, sources
from sitepages.data import load
from tests.site_build import built_pages, parsed

# built_site, the one strict build of the session, lives in conftest.py.


def test_mkdocs_build_strict_has_no_warnings(built_site):
    _, result = built_site
    log = result.stdout + result.stderr
    warnings = [line for line in log.splitlines() if re.search(r"\b(WARNING|ERROR)\b", line)]
    assert result.returncode == 0 and not warnings, f"mkdocs build --strict failed:\n{log}"


def test_the_build_log_holds_only_mkdocs_progress(built_site):
    """A writer sees warnings and errors, not the plugins' routine notes (docs/hooks/quiet_log.py)."""
    _, result = built_site
    progress = re.compile(r"INFO\s+-\s+(Cleaning site directory|Building documentation to directory: .*|"
                          r"Documentation built in [\d.]+ seconds)")
    lines = (result.stdout + result.stderr).splitlines()
    noise = [line for line in lines if line.strip() and not progress.fullmatch(line)]
    assert not noise, "the build logs more than its progress:\n" + "\n".join(noise[:20])


class SearchIndex:
    """Both languages' built search indexes, tokenised once, ranked as Material's search matches.

    Query and text are split with the index's own separator; a query term
    matches a word it is a prefix of (Material searches `term*`), every term
    must match, and a match in a title weighs as the index's title boost.
    """

    def __init__(self, index: dict):
        self.separator = re.compile(index["config"]["separator"])
        self.title_boost = int(index["config"]["fields"]["title"]["boost"])
        self.docs = []  # (page, title tokens, text tokens, text as indexed)
        self.postings: dict[str, Counter] = {}  # word -> {doc number: weighted count}
        for number, doc in enumerate(index["docs"]):
            title, text = self.tokens(doc["title"]), self.tokens(doc["text"])
            self.docs.append((doc["location"].split("#")[0], title, text, doc["text"]))
            for word in text:
                self.postings.setdefault(word, Counter())[number] += 1
            for word in title:
                self.postings.setdefault(word, Counter())[number] += self.title_boost
        self.words = sorted(self.postings)
        self._found: dict[tuple[str, str], set[str]] = {}

    def pages_found(self, query: str, language: str) -> set[str]:
        """The pages ``ranking`` finds, remembered: each glossary term is searched once for all the pages."""
        if (query, language) not in self._found:
            self._found[query, language] = {page for page, _ in self.ranking(query, language)}
        return self._found[query, language]

    def tokens(self, text: str) -> list[str]:
        text = parsed(text).get_text(" ")  # the index stores HTML
        return [token.lower() for token in self.separator.split(text) if token]

    def _hits(self, term: str) -> Counter:
        """Doc number -> weighted count of the words that the term is a prefix of."""
        hits: Counter = Counter()
        for word in self.words[bisect.bisect_left(self.words, term):]:
            if not word.startswith(term):
                break
            hits.update(self.postings[word])
        return hits

    def ranking(self, query: str, language: str) -> list[tuple[str, int]]:
        terms = self.tokens(query)
        scores: Counter = Counter()
        matched: dict[str, set] = {}
        for term in terms:
            for number, count in self._hits(term).items():
                page = self.docs[number][0]
                if page.startswith("zh/") != (language == "zh"):
                    continue
                scores[page] += count
                matched.setdefault(page, set()).add(term)
        return [(page, score) for page, score in scores.most_common() if matched[page] == set(terms)]


@pytest.fixture(scope="session")
def search_index(built_site) -> SearchIndex:
    site, result = built_site
    assert result.returncode == 0, "the site did not build; see test_mkdocs_build_strict_has_no_warnings"
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    # Each language has its own index (docs/hooks/search_per_language.py), the Chinese
    # one at /zh/ with locations relative to it: merged here as one site's index.
    assert not any(doc["location"].startswith("zh/") for doc in index["docs"]), "Chinese pages in the English index"
    chinese = json.loads((site / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    index["docs"] += [{**doc, "location": "zh/" + doc["location"]} for doc in chinese["docs"]]
    return SearchIndex(index)


# (query, language, a page the index must find for it), from docs/search/queries.yml.
# Which page comes first is the search engine's business, checked in a real
# browser by tests/browser/test_search.py; here the index itself is checked: that
# the separator and jieba's dictionary let each query reach its page.
QUERIES = load(ROOT / "docs/search/queries.yml", ROOT / "docs/search/queries.schema.json").value
SEARCHES = ([(query, "en", page) for query, page in QUERIES["both"] + QUERIES["en"]]
            + [(query, "zh", "zh/" + page) for query, page in QUERIES["both"] + QUERIES["zh"]])


@pytest.mark.parametrize("query, language, page", SEARCHES)
def test_search_index_finds_the_page(search_index, query, language, page):
    found = [found_page for found_page, _ in search_index.ranking(query, language)]
    assert page in found, f"searching {query!r} ({language}) does not find {page}; it finds {found[:6]}"


GLOSSARY_TERMS = [line.split()[0] for line in (ROOT / "docs/search/jieba-user-dict.txt").read_text("utf-8").splitlines()
                  if line.strip()]


def test_the_version_matrix_is_not_indexed(search_index):
    """The matrix and its per-page lists repeat every page's title (docs/hooks/torch_version_notes.py marks
    them data-search-exclude): indexed, they outranked the pages; the page's prose stays."""
    for language in ("", "zh/"):
        page = f"{language}torch-versions/"
        sections = [(location, text) for location, _, _, text in search_index.docs if location == page]
        assert sections, f"/{page} is not in the search index"
        assert len(sections) <= 3, f"/{page} has {len(sections)} sections in the index, its matrix's lists included"
        # The table's header and its legend name "Output identical on"; the behaviour changes, prose that
        # stays searchable, name releases too, so a release number would not tell the table apart.
        assert not any("Output identical on" in text or "输出完全相同" in text for _, text in sections), \
            f"/{page}: the matrix's table or its legend is in the index"


@pytest.mark.parametrize("source", sources("zh"), ids=page_id)
def test_search_finds_the_page_by_every_glossary_term_it_uses(search_index, source):
    """Segmentation never hides a term: each Chinese glossary term (docs/search/jieba-user-dict.txt)
    that a Chinese page's text uses finds that page. (Inside a longer glossary term, such as 钩子 in
    通信钩子, jieba keeps the longer term whole, and that is what search finds there.)"""
    page = page_url(source).lstrip("/")
    html = " ".join(text.replace("\u200b", "") for location, _, _, text in search_index.docs if location == page)
    assert GLOSSARY_TERMS and html, f"{page} is not in the search index"
    missed = []
    for term in GLOSSARY_TERMS:
        text = html
        for longer in (other for other in GLOSSARY_TERMS if term in other and other != term):
            text = text.replace(longer, "")
        if term in text and page not in search_index.pages_found(term, "zh"):
            missed.append(term)
    assert not missed, f"searching these glossary terms does not find {page}, which contains them: {missed}"


def test_language_switcher_links_every_page_to_its_twin(built_site, built_page):
    site, _ = built_site
    pages = built_pages(site)
    assert len(pages) >= 4
    wrong = []
    for page in pages:
        links = {a["hreflang"]: urljoin(f"http://127.0.0.1:8000{page}", a["href"])
                 for a in built_page(page).select("a.md-select__link[hreflang]")}
        english = page.removeprefix("/zh")
        expected = {"en": f"http://127.0.0.1:8000{english}", "zh": f"http://127.0.0.1:8000/zh{english}"}
        if links != expected:
            wrong.append(f"{page}: switcher links {links}, expected {expected}")
    assert not wrong, "\n".join(wrong)


def test_chinese_text_has_no_line_break_between_characters(built_site, built_page):
    """A source line break between two Chinese characters would show as a space."""
    site, _ = built_site
    wide = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]"
    broken = []
    for page in built_pages(site):
        if not page.startswith("/zh/"):
            continue
        for text in built_page(page).find_all(string=True):
            if text.find_parent("pre") is None:
                for match in re.finditer(rf"{wide}[ \t]*\n[ \t]*{wide}", text):
                    broken.append(f"{page}: {match.group(0)!r}")
    assert not broken, \
        "line breaks between Chinese characters (docs/hooks/chinese_line_breaks.py):\n" + "\n".join(broken[:20])


# --- the search check fails without the segmenting separator --------------------------


def test_search_check_fails_without_the_segmenting_separator():
    docs = [
        {"location": "zh/hooks/", "title": "钩子", "text": "<p>\u200b钩子\u200b会\u200b收到\u200b梯度\u200b。</p>"},
        {"location": "zh/leaf/", "title": "叶子节点", "text": "<p>\u200b叶子节点\u200b的\u200b梯度\u200b。</p>"},
    ]
    fields = {"title": {"boost": 1000.0}}
    segmented = {"config": {"separator": "[\\s\\u200b。]+", "fields": fields}, "docs": docs}
    unsegmented = {"config": {"separator": "[\\s]+", "fields": fields}, "docs": docs}

    assert [page for page, _ in SearchIndex(segmented).ranking("梯度", "zh")] == ["zh/hooks/", "zh/leaf/"]
    assert SearchIndex(segmented).ranking("钩子", "zh")[0][0] == "zh/hooks/"
    assert SearchIndex(unsegmented).ranking("梯度", "zh") == []


def test_an_error_entry_shows_its_title_as_printed(built_site, built_page):
    """docs/hooks/error_titles_as_printed.py: <class 'list'>, __main__ and backquotes in a message's title are
    shown, not read as an HTML tag, bold or code."""
    site, _ = built_site
    wrong = []
    for source in sorted(ROOT.glob("docs/*/errors/*.md")):
        if source.name == "index.md":
            continue
        title = re.sub(r"\s*\{\s*#[^{}]*\}\s*$", "", source.read_text(encoding="utf-8").partition("\n")[0][2:])
        heading = built_page(page_url(source.relative_to(ROOT))).select_one("article h1")
        shown = heading.get_text().removesuffix("¶") if heading else None
        if shown != title:
            wrong.append(f"{source.relative_to(ROOT)}:1: the page shows {shown!r}, expected {title!r}")
    assert not wrong, "\n".join(wrong[:20])
