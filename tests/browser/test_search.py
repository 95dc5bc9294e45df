"""Typing into Material's search box finds the right page, in English and in Chinese.

English terms are typed key by key; Chinese terms arrive as an input method
commits them, in one piece; the error message is pasted from the clipboard.
(The build-time ranking of the same index is tested in tests/test_site_build.py.)
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sitepages import LANGUAGES, ROOT, page_url
from sitepages.data import load

# Typed into the search box as readers do, from docs/search/queries.yml: (language
# of the page searched from, how the query gets in, query, the page that must come
# first; None: any page of that language, and how many pages it may come within).
# A Chinese term or question may by default come among the first CHINESE_TERM_RANK
# results: the browser splits a Chinese query its own way, not as jieba split the
# pages at build time, so a page that only shares the term's characters can
# outrank the page about the term; `within` in the file overrides that.
QUERIES = [(q["from"], q["how"], q["query"], q.get("first") and ("/zh" if q["from"] == "zh" else "") + q["first"],
            q.get("within"))
           for q in load(ROOT / "docs/search/queries.yml", ROOT / "docs/search/queries.schema.json").value["browser"]]

CHINESE_TERM_RANK = 3  # and for questions

REJECTED = {}  # page: the search worker's "Invalid query" warnings since the last search began

INPUT = ".md-search__input"
RESULTS = ".md-search-result__item > a"
# Material marks each result link with the query terms it matched (?h=...): when
# typing key by key, a result list whose first link carries every term of the
# query (as the site's script sends it: stop words and particles dropped) is the
# final one, not the list for a prefix typed on the way. Where the first page
# found matches only some of the terms, the list is final once it has stayed the
# same for a second after the last key.
FINAL_RESULTS = """query => {
  const first = document.querySelector('.md-search-result__item > a');
  if (!first) return false;
  const terms = s => [...new Set(s.toLowerCase().split(/[\\s+_]+/).filter(Boolean))].sort().join(' ');
  if (terms(new URL(first.href).searchParams.get('h') || '') === terms(window.__segmentSearchQuery(query)))
    return true;
  const links = [...document.querySelectorAll('.md-search-result__item > a')].map(a => a.href).join(' ');
  const seen = window.__searchSeen, now = performance.now();
  if (!seen || seen.links !== links) { window.__searchSeen = {links, since: now}; return false; }
  return now - seen.since > 1000;
}"""


@pytest.fixture(scope="module")
def search_pages(new_context, server):
    context = new_context(permissions=["clipboard-read", "clipboard-write"])
    pages, errors = {}, []
    for language, home in ((language, page_url(f"docs/{language}/index.md")) for language in LANGUAGES):
        page = context.new_page()
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.on("console", lambda message, page=page: message.text.startswith("Invalid query")
                and REJECTED.setdefault(page, []).append(message.text))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url(home), wait_until="load")
        pages[language] = page
    yield pages
    assert not errors, f"console errors while searching: {errors}"
    assert not new_context.blocked(context), f"requests leaving 127.0.0.1: {new_context.blocked(context)}"


def search(page, server, how: str, query: str) -> list[str]:
    """Type, paste or commit ``query`` into the search box of ``page``: the site paths of the results, in order."""
    box = page.locator(INPUT)
    box.click()
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.press("Backspace")
    page.wait_for_function("() => !document.querySelector('.md-search-result__item')")
    page.evaluate("() => { window.__searchSeen = null }")
    if how == "type":
        page.keyboard.type(query)
    elif how in ("ime", "question"):
        page.keyboard.insert_text(query)  # what an input method does when the reader picks the words
        page.keyboard.press("End")
    else:
        page.evaluate("text => navigator.clipboard.writeText(text)", query)
        page.keyboard.press("ControlOrMeta+V")
    assert box.input_value() == query
    rejected = REJECTED.setdefault(page, [])
    rejected.clear()
    try:
        if how == "type":
            page.wait_for_function(FINAL_RESULTS, arg=query, timeout=10_000, polling=100)
        else:  # the whole query at once: the first list shown is the final one
            page.wait_for_selector(RESULTS, timeout=10_000)
    finally:
        # Material's worker logs "Invalid query" and shows "No matching documents" when lunr throws on a query.
        assert not rejected, f"the search worker rejected {query!r}: {rejected}"
    found = [server.site_path(urlsplit(href)._replace(query="", fragment="").geturl())
             for href in page.eval_on_selector_all(RESULTS, "links => links.map(a => a.href)")]
    assert found, f"searching {query!r} finds nothing"
    return found


# Each id names the page that must come first, so that ``pytest -k PAGE`` selects the searches for it.
@pytest.mark.parametrize("language, how, query, expected, within", QUERIES,
                         ids=[f"{q[0]}-{q[2][:24]}-{q[3] or 'any page'}" for q in QUERIES])
def test_search_finds_the_right_page(search_pages, server, language, how, query, expected, within):
    found = search(search_pages[language], server, how, query)
    if expected is None:
        # The index holds both languages; an English page may mention 梯度 (the glossary).
        assert found[0].startswith("/zh/") == (language == "zh"), \
            f"searching {query!r}: the first result is not a page in {language}: {found[:5]}"
        return
    within = within or (CHINESE_TERM_RANK if how in ("ime", "question") else 1)
    first = list(dict.fromkeys(found))[:within]
    assert expected in first, f"searching {query!r}: expected {expected} in the first {within} pages, got {first}"


# The version matrix lists every page's title; it must not come before the pages (docs/hooks/torch_version_notes.py).
@pytest.mark.parametrize("language, query", [("en", "grad cam"), ("en", "nan"), ("en", "backward twice"),
                                             ("zh", "梯度 nan"), ("zh", "grad cam"), ("zh", "nan")])
def test_the_version_matrix_does_not_crowd_results(search_pages, server, language, query):
    first = list(dict.fromkeys(search(search_pages[language], server, "ime", query)))[:3]
    versions = ("/zh" if language == "zh" else "") + "/torch-versions/"
    assert versions not in first, f"searching {query!r}: the version matrix is among the first three: {first}"


@pytest.mark.parametrize("query, words", [
    ("中间变量的梯度为None", "中间变量 梯度 None"),
    ("detach和data的区别", "detach data"),
    ("no_grad vs requires_grad False", "no_grad requires_grad False"),
    ("retain_grad", "retain_grad"),
    # a star of a pasted message is no wildcard (it would match every word); one typed after a word is
    ("out_dims has structure TreeSpec(tuple, None, [*, *]) but output has structure *. retain*",
     "out_dims structure TreeSpec(tuple, None, [ , ]) output structure . retain*"),
    # a stop word with its punctuation is still one (lunr trimmed the pages' words so, and dropped them)
    ("tangents also must be. Got primals, (it) structure.", "tangents primals, structure."),
])
def test_a_query_is_split_as_the_pages_were(search_pages, query, words):
    """Chinese cut into the site's terms and words, split from Latin, particles dropped."""
    assert search_pages["zh"].evaluate("query => window.__segmentSearchQuery(query)", query) == words


# --- the error index: every message, pasted as a reader copies it, leads to its entry -----------

def _pasted(message) -> str:
    """The message's line as its entry prints it (the entry's title when its example is not run)."""
    from tests.test_error_index import printed_line  # noqa: PLC0415 (pages parsed once, here)

    line = printed_line(message)
    if line:
        return line
    page = ROOT / "docs/en" / message.entry
    return next(line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("# "))[2:].strip()


def _entry_queries():
    from tests.test_error_index import MESSAGES  # noqa: PLC0415

    return [(language, message.id, Path(message.entry).stem, _pasted(message)) for message in MESSAGES
            if message.entry for language in LANGUAGES]


ENTRY_QUERIES = _entry_queries()


@pytest.mark.parametrize("language, message_id, entry_id, query", ENTRY_QUERIES,
                         ids=[f"{q[0]}-{q[1]}" for q in ENTRY_QUERIES])
def test_a_pasted_message_finds_its_entry_first(search_pages, server, language, message_id, entry_id, query):
    """Each message, its entry's page first (two wordings of one error may share the page of the first)."""
    from tests.test_error_index import MESSAGES  # noqa: PLC0415

    found = list(dict.fromkeys(search(search_pages[language], server, "paste", query)))
    prefix = "/zh" if language == "zh" else ""
    expected = f"{prefix}/errors/{entry_id}/"
    # Two causes torch reports with the very same words (the engine's "Trying to backward through the graph a
    # second time" and a custom Function's, listed with its first sentence and <...>) cannot be told apart from
    # the text: the entry of a message that the pasted line is, whole, and that is listed with at least as much
    # text (as specific), may come first.
    message = next(m for m in MESSAGES if m.id == message_id)
    same_words = {f"{prefix}/errors/{Path(m.entry).stem}/" for m in MESSAGES
                  if m.entry and (m is message or (m.pattern().fullmatch(query) and len(m.text) >= len(message.text)))}
    assert found[0] in same_words, f"pasting {query!r} from /{language}/: expected {expected} first, got {found[:4]}"


def test_every_entry_is_searched():
    """Guards against a change that would leave the per-message search test with nothing to check."""
    from tests.test_error_index import ENTRIES  # noqa: PLC0415

    assert {entry_id for _, _, entry_id, _ in ENTRY_QUERIES} == set(ENTRIES)


@pytest.mark.parametrize("query, entry", [
    # the whole message, with or without its type, numbers and names as the reader's run printed them
    ("RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
     "errors/leaf-variable-in-place/"),
    ("a view of a leaf Variable that requires grad is being used in an in-place operation.",
     "errors/view-of-leaf-in-place/"),
    ("RuntimeError: element 3 of tensors does not require grad and does not have a grad_fn",
     "errors/element-does-not-require-grad/"),
    # the start of one message only
    ("grad can be implicitly created only for scal", "errors/grad-only-for-scalar-outputs/"),
    # a few words, or the start of several messages: search ranks as usual
    ("in-place operation", None),
    ("vmap: It looks like you're", None),
])
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_pasted_message_names_its_entry(search_pages, language, query, entry):
    """docs/assets/javascripts/search-message-lookup.js: which entry a query asks for (the list of messages
    arrives after the page: wait until it names one)."""
    page = search_pages[language]
    page.wait_for_function("() => window.__searchEntryOf('grad can be implicitly created only for scalar outputs')")
    assert page.evaluate("query => window.__searchEntryOf(query)", query) == entry


# --- the search worker's lunr: its set of words holds only the index's words ---------------------

# lunr 2.3.9's TokenSet merged two different nodes of its automaton where edges are digits, so the set of the
# index's words also accepted words that no page holds, and searching one threw in the worker
# (docs/assets/javascripts/workers/lunr-token-set-fix.js). These words show it in Material's worker as it ships
# (found, for that worker, by `python -m tests.tools lunr_phantom_words --write`).
# The file holds the worker's setup (an index of one page holding the words) and the query: a word of the page
# and a phantom.
PHANTOM = json.loads((Path(__file__).parent / "lunr-phantom-words.json").read_text(encoding="utf-8"))


SEARCH_IN_A_NEW_WORKER = """async ({url, setup, query}) => {
  const worker = new Worker(url)
  const found = await new Promise((resolve, reject) => {
    worker.addEventListener("error", event => reject(new Error(`the worker ${url} failed: ${event.message}`)))
    worker.addEventListener("message", event => {
      if (event.data.type === 1) worker.postMessage({type: 2, data: query})  // READY: ask
      if (event.data.type === 3) resolve(event.data.data.items.length)  // RESULT
    })
    worker.postMessage({type: 0, data: setup})  // SETUP
  })
  worker.terminate()
  return found
}"""


def test_the_search_worker_finds_no_word_that_no_page_holds(search_pages):
    page = search_pages["en"]
    worker = page.evaluate("() => { const c = JSON.parse(document.getElementById('__config').textContent);"
                           " return new URL(c.search, new URL(c.base, location.href)).href }")
    # Material's worker as it ships (from a blob: search-worker-fix.js leaves other workers alone): the
    # phantom word makes lunr throw, so the page is not found by its own word either.
    unfixed = page.evaluate("url => fetch(url).then(r => r.blob()).then(b => URL.createObjectURL(b))", worker)
    rejected = REJECTED.setdefault(page, [])
    rejected.clear()
    found = page.evaluate(SEARCH_IN_A_NEW_WORKER,
                          {"url": unfixed, "setup": PHANTOM["setup"], "query": PHANTOM["query"]})
    assert (found, bool(rejected)) == (0, True), \
        (f"the words of tests/browser/lunr-phantom-words.json (for {PHANTOM['worker']}) no longer show lunr's bug in "
         f"Material's own worker {worker.rsplit('/', 1)[-1]} (found {found}, warnings {rejected}): run "
         "`python -m tests.tools lunr_phantom_words --write`")
    # The site's worker (the same URL, through search-worker-fix.js): the page is found, nothing is rejected.
    rejected.clear()
    found = page.evaluate(SEARCH_IN_A_NEW_WORKER,
                          {"url": worker, "setup": PHANTOM["setup"], "query": PHANTOM["query"]})
    assert (found, rejected) == (1, []), f"searching {PHANTOM['query']!r}: {found} pages found, warnings {rejected}"
