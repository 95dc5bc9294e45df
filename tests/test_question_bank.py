"""The question bank (docs/data/questions.yml) holds real threads and leads to real answers, in both languages."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest

from sitepages import LANGUAGES, ROOT, page_id, page_url
from sitepages.questions import BANK as BANK_PATH
from sitepages.questions import QuestionBankError, load_bank, parse_bank
from tests.test_troubleshooting_index import CHINESE, ENGLISH, Printed, _covers, listed_messages

BANK = BANK_PATH.relative_to(ROOT)
BANK_DATA = load_bank()
QUESTIONS = BANK_DATA.questions
MIN_THREADS = 100
MIN_CHINESE_SHARE = 1 / 3


def test_the_bank_stands_for_enough_real_threads_a_third_of_them_chinese():
    threads, chinese = BANK_DATA.thread_count(), BANK_DATA.thread_count("zh")
    assert threads >= MIN_THREADS, f"{BANK}: {threads} threads; the bank stands for at least {MIN_THREADS}"
    assert chinese >= MIN_CHINESE_SHARE * threads, (
        f"{BANK}: {chinese} of {threads} threads are Chinese; at least a third must be"
    )


QUOTING_AN_ERROR = [question for question in QUESTIONS if question.error]


@pytest.mark.parametrize("question", QUOTING_AN_ERROR, ids=[q.id for q in QUOTING_AN_ERROR])
def test_every_quoted_error_is_on_both_troubleshooting_pages(question):
    kind, _, message = question.error.partition(": ") if ": " in question.error else question.error.partition(" ")
    printed = Printed(f"{BANK}:{question.line}", kind, message)
    for troubleshooting in (ENGLISH, CHINESE):
        assert any(_covers(listed, printed) for listed in listed_messages(troubleshooting)), (
            f"{BANK}:{question.line}: question {question.id!r} quotes {question.error!r}, which "
            f"{troubleshooting}'s tables of messages do not list"
        )


# (language, page) of every page an answer leads to: each page's anchors are its own test (pytest -k PAGE).
ANSWERED = sorted({(language, question.answer[language].partition("#")[0])
                   for question in QUESTIONS if question.answer for language in LANGUAGES})


@pytest.mark.parametrize("language, answered", ANSWERED,
                         ids=[page_id(Path("docs", language, page)) for language, page in ANSWERED])
def test_every_answer_anchor_exists_on_the_built_page(built_page, language, answered):
    missing = []
    for question in QUESTIONS:
        if question.answer is None:
            continue
        page, _, anchor = question.answer[language].partition("#")
        if page != answered:
            continue
        url = page_url(f"docs/{language}/{page}")
        if built_page(url).find(id=unquote(anchor)) is None:
            missing.append(f"{BANK}:{question.line}: {question.id}: no #{anchor} on {url}")
    assert not missing, "answers that lead nowhere:\n" + "\n".join(missing)


@pytest.mark.parametrize("language", LANGUAGES, ids=[f"{language}/questions.md" for language in LANGUAGES])
def test_the_questions_page_shows_every_question_its_answer_and_its_threads(built_page, language):
    url = page_url(f"docs/{language}/questions.md")
    page = built_page(url)
    problems = []
    for question in QUESTIONS:
        entry = page.find(id=f"q-{question.id}")
        item = entry.find_parent("li") if entry else None
        if item is None:
            problems.append(f"{question.id}: not on {url}")
            continue
        links = [urljoin(url, a["href"]) for a in item.find_all("a", href=True)]
        shown = " ".join(item.get_text().split())  # as read: Markdown's backticks are gone
        if question.answer:
            page_path, _, anchor = question.answer[language].partition("#")
            target = f"{page_url(f'docs/{language}/{page_path}')}#{anchor}"
            if target not in map(unquote, links):
                problems.append(f"{question.id}: no link to {target} (links: {links})")
        elif question.out_of_scope[language].replace("`", "") not in shown:
            problems.append(f"{question.id}: the reason it is out of scope is not shown")
        if not set(question.urls) <= set(links):
            problems.append(f"{question.id}: threads not linked: {sorted(set(question.urls) - set(links))}")
        if question.text[language].replace("`", "") not in shown:
            problems.append(f"{question.id}: the question's text is not shown")
    assert not problems, f"{url}:\n" + "\n".join(problems)


# --- bad input is refused, saying where ------------------------------------------

GOOD = """\
themes:
  - id: hooks
    en: Hooks
    zh: 钩子
questions:
  - id: hook-does-nothing
    theme: hooks
    en: My hook does nothing
    zh: 钩子不起作用
    answer: intermediate/hooks.md#three-fixes
    threads:
      en: [https://example.org/1]
"""


def test_a_good_bank_loads():
    bank = parse_bank(GOOD)
    assert [q.id for q in bank.questions] == ["hook-does-nothing"] and bank.thread_count() == 1


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda t: t.replace("    threads:\n      en: [https://example.org/1]\n", ""),
            r":6: question 'hook-does-nothing': missing 'threads'; expected the threads where it was asked",
        ),
        (lambda t: t.replace("theme: hooks", "theme: hook"), r":7: .*theme 'hook' is not one of \['hooks'\]"),
        (
            lambda t: t.replace("    zh: 钩子不起作用\n", ""),
            r":6: question 'hook-does-nothing': missing 'zh'; expected the question in the reader's words, in Chinese",
        ),
        (
            lambda t: t.replace("answer: intermediate/hooks.md#three-fixes", "answer: nowhere.md#x"),
            r":10: .*answer \(en\) names a page that does not exist: docs/en/nowhere.md",
        ),
        (
            lambda t: t.replace("    answer: intermediate/hooks.md#three-fixes\n", ""),
            r":6: .*needs exactly one of 'answer' .* or 'out_of_scope' .*; it has neither",
        ),
        (
            lambda t: t + t[t.index("  - id: hook-does") :].replace("example.org/1", "example.org/2"),
            r":13: question id 'hook-does-nothing' is already used at docs/data/questions.yml:6$",
        ),
        (
            lambda t: (
                t
                + t[t.index("  - id: hook-does") :].replace("id: hook-does-nothing", "id: other").replace("/1]", "/2]")
            ),
            r":15: question 'other' asks the same \(en: 'My hook does nothing'\) as the question at .*:8$",
        ),
        (
            lambda t: (
                t
                + t[t.index("  - id: hook-does") :]
                .replace("id: hook-does-nothing", "id: other")
                .replace("My hook does nothing", "Other")
                .replace("钩子不起作用", "别的")
            ),
            r":19: question 'other': thread https://example.org/1 is already listed .* at .*questions.yml:12$",
        ),
        (
            lambda t: t.replace("en: [https://example.org/1]", "en: [example.org/1]"),
            r":12: .*threads.en\[0\]: expected a thread's URL \(http or https\), got 'example.org/1'$",
        ),
        (
            lambda t: t.replace("    threads:", "    error: grad is None\n    threads:"),
            r":11: .*error: expected the message as printed, starting with its type .*, got 'grad is None'$",
        ),
        (
            lambda t: t.replace("    threads:", "    colour: red\n    threads:"),
            r":11: question 'hook-does-nothing': unknown key 'colour'; expected id, theme, en, zh, threads, answer",
        ),
        (
            lambda t: t.replace("      en: [", "      fr: ["),
            r":12: question 'hook-does-nothing': threads: key 'fr': expected a language of the site: en, zh$",
        ),
        (
            lambda t: t.replace("answer: intermediate/hooks.md#three-fixes", "answer: intermediate/hooks.md"),
            r":10: .*answer: expected 'page.md#anchor' .*, got 'intermediate/hooks.md'$",
        ),
        (
            lambda t: t.replace("answer: intermediate/hooks.md#three-fixes", "out_of_scope: {en: Elsewhere}"),
            r":10: question 'hook-does-nothing': out_of_scope: missing 'zh'; expected one non-empty text per language",
        ),
        (
            lambda t: t.replace("questions:", "  - id: hooks\n    en: Again\n    zh: 又\nquestions:"),
            r":5: theme id 'hooks' is already used at docs/data/questions.yml:2$",
        ),
        (
            lambda t: t.replace("questions:", "  - id: empty\n    en: Empty\n    zh: 空\nquestions:"),
            r":5: theme 'empty' has no question$",
        ),
    ],
)
def test_a_broken_entry_is_refused_with_its_line(change, message):
    with pytest.raises(
        QuestionBankError, match=r"^docs/data/questions.yml" + message if message.startswith(":") else message
    ):
        parse_bank(change(GOOD))


def test_a_thread_link_names_the_repository_and_number_or_the_site():
    from question_bank import thread_label

    assert thread_label("https://github.com/pytorch/pytorch/issues/30531") == "pytorch/pytorch#30531"
    assert thread_label("https://github.com/owner/repo/pull/7") == "owner/repo#7"
    assert thread_label("https://discuss.pytorch.org/t/some-title/90767") == "discuss.pytorch.org"
    assert thread_label("https://www.cnblogs.com/someone/p/1.html") == "cnblogs.com"
