"""The question bank: real readers' questions, where they were asked, and the section that answers each.

The bank is one YAML file, ``docs/data/questions.yml`` (its header says how to
add an entry). The "Questions people ask" page of each language is rendered
from it at build time (``docs/hooks/question_bank.py``) and the suite checks it
against the site (``tests/test_question_bank.py``). Loading validates every
entry and says what is wrong where: ``docs/data/questions.yml:LINE: ...``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from .layout import DOCS, LANGUAGES, ROOT

BANK = DOCS / "data" / "questions.yml"
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class QuestionBankError(ValueError):
    """The bank breaks one of its rules; the message starts with file:line."""

    def __init__(self, line: int, message: str, path: Path = BANK) -> None:
        where = path.relative_to(ROOT) if path.is_absolute() and path.is_relative_to(ROOT) else path
        super().__init__(f"{where}:{line}: {message}")


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


class _LineLoader(yaml.SafeLoader):
    """Records the line of every mapping, so that errors can say where an entry is."""


def _mapping_with_line(loader: _LineLoader, node: yaml.MappingNode) -> dict:
    mapping = loader.construct_mapping(node, deep=True)
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_with_line)


def _per_language(value, line: int, what: str, path: Path) -> dict[str, str]:
    """A {en: ..., zh: ...} field: every language, each a non-empty string."""
    if isinstance(value, str):
        value = {language: value for language in LANGUAGES}
    if not isinstance(value, dict):
        raise QuestionBankError(
            line, f"{what}: expected a text per language ({', '.join(LANGUAGES)}), got {value!r}", path
        )
    found = {key: text for key, text in value.items() if key != "__line__"}
    missing = [
        language for language in LANGUAGES if not isinstance(found.get(language), str) or not found[language].strip()
    ]
    extra = sorted(set(found) - set(LANGUAGES))
    if missing or extra:
        raise QuestionBankError(
            value.get("__line__", line),
            f"{what}: expected one text for each of {', '.join(LANGUAGES)}; "
            + (f"missing {', '.join(missing)}" if missing else f"unknown key(s) {', '.join(extra)}"),
            path,
        )
    return {language: " ".join(found[language].split()) for language in LANGUAGES}


def _threads(value, line: int, entry: str, path: Path) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict) or not any(value.get(language) for language in LANGUAGES):
        raise QuestionBankError(
            line,
            f"question {entry!r}: 'threads' must map a language ({', '.join(LANGUAGES)}) "
            f"to the URLs of the threads where it was asked; got {value!r}",
            path,
        )
    unknown = sorted(set(value) - set(LANGUAGES) - {"__line__"})
    if unknown:
        raise QuestionBankError(
            value["__line__"], f"question {entry!r}: threads in unknown language(s) {unknown}", path
        )
    threads = {}
    for language in LANGUAGES:
        urls = value.get(language) or []
        for url in urls:
            parts = urlsplit(url) if isinstance(url, str) else None
            if not parts or parts.scheme not in ("http", "https") or not parts.netloc:
                raise QuestionBankError(value["__line__"], f"question {entry!r}: not a thread URL: {url!r}", path)
        threads[language] = tuple(urls)
    return threads


def _answer(entry: dict, name: str, path: Path) -> dict[str, str] | None:
    value = entry.get("answer")
    if value is None:
        return None
    answers = _per_language(value, entry["__line__"], f"question {name!r}: answer", path)
    for language, target in answers.items():
        page, _, anchor = target.partition("#")
        if not page.endswith((".md", ".ipynb")) or not anchor:
            raise QuestionBankError(
                entry["__line__"],
                f"question {name!r}: answer ({language}) must be 'page.md#anchor', got {target!r}",
                path,
            )
        if not (DOCS / language / page).is_file():
            raise QuestionBankError(
                entry["__line__"],
                f"question {name!r}: answer ({language}) names a page that does not exist: docs/{language}/{page}",
                path,
            )
    return answers


def parse_bank(text: str, path: Path = BANK) -> Bank:
    """The bank, validated: unique ids and questions, known themes, an answer or a reason for each."""
    try:
        data = yaml.load(text, Loader=_LineLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise QuestionBankError(mark.line + 1 if mark else 1, f"not valid YAML: {error}", path) from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("themes"), list)
        or not isinstance(data.get("questions"), list)
    ):
        raise QuestionBankError(1, "expected two lists, 'themes' and 'questions'", path)

    themes = []
    for entry in data["themes"]:
        if not isinstance(entry, dict) or not _ID.fullmatch(str(entry.get("id", ""))):
            raise QuestionBankError(
                getattr(entry, "get", lambda *_: 1)("__line__", 1),
                f"a theme needs an id of lower-case words joined by '-', got {entry!r}",
                path,
            )
        themes.append(
            Theme(
                entry["id"],
                _per_language(
                    {k: v for k, v in entry.items() if k != "id"}, entry["__line__"], f"theme {entry['id']!r}", path
                ),
                entry["__line__"],
            )
        )
    theme_ids = [theme.id for theme in themes]

    questions: list[Question] = []
    seen_ids: dict[str, int] = {}
    seen_text: dict[tuple[str, str], int] = {}
    seen_urls: dict[str, int] = {}
    for entry in data["questions"]:
        if not isinstance(entry, dict):
            raise QuestionBankError(1, f"a question must be a mapping, got {entry!r}", path)
        line, name = entry["__line__"], str(entry.get("id", ""))
        if not _ID.fullmatch(name):
            raise QuestionBankError(
                line, f"a question needs an id of lower-case words joined by '-', got {name!r}", path
            )
        if name in seen_ids:
            raise QuestionBankError(line, f"question id {name!r} is already used at line {seen_ids[name]}", path)
        seen_ids[name] = line
        unknown = sorted(
            set(entry) - {"__line__", "id", "theme", *LANGUAGES, "threads", "answer", "out_of_scope", "error"}
        )
        if unknown:
            raise QuestionBankError(line, f"question {name!r}: unknown field(s) {unknown}", path)
        if entry.get("theme") not in theme_ids:
            raise QuestionBankError(
                line, f"question {name!r}: theme {entry.get('theme')!r} is not one of {theme_ids}", path
            )
        text = _per_language(
            {language: entry.get(language) for language in LANGUAGES}, line, f"question {name!r}", path
        )
        for language, question in text.items():
            key = (language, re.sub(r"\W+", " ", question.casefold()).strip())
            if key in seen_text:
                raise QuestionBankError(
                    line,
                    f"question {name!r} asks the same as the question at line "
                    f"{seen_text[key]} ({language}: {question!r})",
                    path,
                )
            seen_text[key] = line
        threads = _threads(entry.get("threads"), line, name, path)
        for url in (u for urls in threads.values() for u in urls):
            if url in seen_urls:
                raise QuestionBankError(
                    line,
                    f"question {name!r}: thread {url} is already listed at line {seen_urls[url]}; "
                    "a thread belongs to one question",
                    path,
                )
            seen_urls[url] = line
        answer = _answer(entry, name, path)
        out_of_scope = entry.get("out_of_scope")
        if (answer is None) == (out_of_scope is None):
            raise QuestionBankError(
                line,
                f"question {name!r}: needs exactly one of 'answer' (page.md#anchor) "
                "or 'out_of_scope' (the reason, per language)",
                path,
            )
        if out_of_scope is not None:
            out_of_scope = _per_language(out_of_scope, line, f"question {name!r}: out_of_scope", path)
        error = entry.get("error")
        if error is not None and (
            not isinstance(error, str) or not re.match(r"[A-Z]\w*(Error|Warning|Exception)\b", error)
        ):
            raise QuestionBankError(
                line,
                f"question {name!r}: error must be the message as printed, starting with its "
                f"type ('RuntimeError: ...'), got {error!r}",
                path,
            )
        questions.append(Question(name, entry["theme"], text, threads, answer, out_of_scope, error, line))
    empty = [theme.id for theme in themes if not any(q.theme == theme.id for q in questions)]
    if empty:
        raise QuestionBankError(1, f"theme(s) with no question: {empty}", path)
    return Bank(tuple(themes), tuple(questions))


@functools.cache
def load_bank(path: Path = BANK) -> Bank:
    return parse_bank(path.read_text(encoding="utf-8"), path)
