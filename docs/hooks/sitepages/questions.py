"""The question bank: real readers' questions, where they were asked, and the section that answers each.

The bank is one YAML file, ``docs/data/questions.yml`` (its header says how to
add an entry). The "Questions people ask" page of each language is rendered
from it at build time (``docs/hooks/question_bank.py``) and the suite checks it
against the site (``tests/test_question_bank.py``). Loading validates every
entry, its shape against ``docs/data/questions.schema.json`` and the rules
between entries here, and says what is wrong where:
``docs/data/questions.yml:LINE: ...``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from .data import DataError, parse
from .layout import DOCS, LANGUAGES

BANK = DOCS / "data" / "questions.yml"
SCHEMA = DOCS / "data" / "questions.schema.json"


class QuestionBankError(DataError):
    """The bank breaks its schema or one of its rules; the message starts with file:line."""


@dataclass(frozen=True)
class Theme:
    id: str
    title: dict[str, str]  # language -> title
    line: int


@dataclass(frozen=True)
class Question:
    id: str
    theme: str
    text: dict[str, str]  # language -> the question as readers ask it
    threads: dict[str, tuple[str, ...]]  # language of the thread -> URLs; the first listed is where it was asked
    answer: dict[str, str] | None  # language -> "page.md#anchor" (relative to docs/LANG/)
    out_of_scope: dict[str, str] | None  # language -> why the site does not answer it
    error: str | None  # the exact error or warning text, if the question quotes one
    line: int

    @property
    def urls(self) -> tuple[str, ...]:
        return tuple(url for language in LANGUAGES for url in self.threads.get(language, ()))


@dataclass(frozen=True)
class Bank:
    themes: tuple[Theme, ...]
    questions: tuple[Question, ...]

    def in_theme(self, theme: str) -> list[Question]:
        return [question for question in self.questions if question.theme == theme]

    def thread_count(self, language: str | None = None) -> int:
        return sum(
            len(q.threads.get(lang, ())) for q in self.questions for lang in ((language,) if language else LANGUAGES)
        )


def parse_bank(text: str, path: Path = BANK) -> Bank:
    """The bank, validated: its shape by docs/data/questions.schema.json, then the rules between entries
    (unique ids, questions and threads; known themes, each with a question; an answer page that exists,
    or a reason it is out of scope)."""
    data = parse(text, path, SCHEMA, QuestionBankError)
    seen: dict = {}  # a theme's or question's id, a question's words, a thread -> the keys where it first is

    def once(claim: tuple, keys: tuple, message: str) -> None:
        if claim in seen:
            raise data.error(keys, f"{message} at {data.where(*seen[claim])}")
        seen[claim] = keys

    themes = []
    for i, entry in enumerate(data.value["themes"]):
        once(("theme", entry["id"]), ("themes", i, "id"), f"theme id {entry['id']!r} is already used")
        themes.append(Theme(entry["id"], _texts(entry), data.line("themes", i)))
    theme_ids = [theme.id for theme in themes]

    questions: list[Question] = []
    for i, entry in enumerate(data.value["questions"]):
        at, name = ("questions", i), entry["id"]
        label = f"question {name!r}"
        once(("question", name), (*at, "id"), f"question id {name!r} is already used")
        if entry["theme"] not in theme_ids:
            raise data.error((*at, "theme"), f"{label}: theme {entry['theme']!r} is not one of {theme_ids}")
        if (answered := "answer" in entry) == ("out_of_scope" in entry):
            raise data.error(at, f"{label}: needs exactly one of 'answer' (page.md#anchor) or 'out_of_scope' "
                                 f"(the reason, per language); it has {'both' if answered else 'neither'}")
        text = _texts(entry)
        for language, words in text.items():
            once(("words", language, re.sub(r"\W+", " ", words.casefold()).strip()), (*at, language),
                 f"{label} asks the same ({language}: {words!r}) as the question")
        for language, urls in entry["threads"].items():
            for k, url in enumerate(urls):
                once(("thread", url), (*at, "threads", language, k),
                     f"{label}: thread {url} is already listed (a thread belongs to one question)")
        answer = None
        if answered:
            value = entry["answer"]
            answer = {language: value for language in LANGUAGES} if isinstance(value, str) else value
            for language, target in answer.items():
                if not (DOCS / language / target.partition("#")[0]).is_file():
                    raise data.error((*at, "answer"), f"{label}: answer ({language}) names a page that "
                                                      f"does not exist: docs/{language}/{target.partition('#')[0]}")
        out_of_scope = _texts(entry["out_of_scope"]) if "out_of_scope" in entry else None
        threads = {language: tuple(entry["threads"].get(language, ())) for language in LANGUAGES}
        questions.append(Question(name, entry["theme"], text, threads, answer, out_of_scope, entry.get("error"),
                                  data.line(*at)))
    for i, theme in enumerate(themes):
        if not any(question.theme == theme.id for question in questions):
            raise data.error(("themes", i), f"theme {theme.id!r} has no question")
    return Bank(tuple(themes), tuple(questions))


def _texts(entry: dict) -> dict[str, str]:
    """The entry's text in each language, its line breaks and runs of spaces made one space."""
    return {language: " ".join(entry[language].split()) for language in LANGUAGES}


@functools.cache
def load_bank(path: Path = BANK) -> Bank:
    return parse_bank(path.read_text(encoding="utf-8"), path)
