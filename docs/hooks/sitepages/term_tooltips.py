"""Tooltips for the core terms (leaf, non-leaf, ``grad_fn``, hook, saved tensor, computation graph).

Which terms get one, and the words that name each in each language, are data:
docs/data/tooltips.yml (schema beside it). What a tooltip says is the
glossary's definition of the term (docs/LANG/glossary.md), the one source of
it: the row is found by its English term in both glossaries. A page gets the
tooltip on the first occurrence of each term (``add_tooltips``), in the text or
the inline code of its paragraphs, lists and table cells (``sitepages.prose``),
as ``<abbr title="...">``, which Material's ``content.tooltips`` shows as its
tooltip.

Matching, at each place of a text, takes the longest of the words it knows:
the forms of every term and every term of the page's glossary. A form inside a
longer glossary term is not that term ("hook" in "forward hook", 叶子节点 in
非叶子节点), and "non-leaf" is never "leaf". English forms match whole words,
in any case; Chinese forms match anywhere, as Chinese has no spaces between
words.
"""

from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass
from pathlib import Path

from .data import DataError, load
from .layout import DOCS
from .prose import Piece, join, pieces
from .tables import page_tables

DATA = DOCS / "data" / "tooltips.yml"
SCHEMA = DOCS / "data" / "tooltips.schema.json"
_CJK = re.compile(r"[\u3400-\u9fff]")
_PARENTHESES = re.compile(r"\s*\(([^)]*)\)")


class TooltipDataError(DataError):
    """docs/data/tooltips.yml breaks its schema, or names a term that a glossary lacks."""


@dataclass(frozen=True)
class Term:
    key: str  # the term's English name in the glossaries
    tooltip: str  # what the tooltip says
    words: tuple[str, ...]  # the forms that name it in prose
    code: tuple[str, ...]  # the inline code that names it (the whole code, or ``x.FORM``)


def _glossary_terms(glossary: Path, language: str) -> dict[str, tuple[str, str, str]]:
    """English term -> (the page language's term, English term, definition), for every row of a glossary."""
    rows = {}
    for table in page_tables(glossary):
        for row in table.rows:
            cells = [cell.text.replace("\n", " ") for cell in row.cells]
            english, own = (cells[0], cells[0]) if language == "en" else (cells[1], cells[0])
            rows[english] = (own, english, cells[2])
    return rows


def _tooltip(own: str, english: str, definition: str, language: str) -> str:
    if language == "en":
        return f"{own}: {definition}"
    return f"{own}：{definition}" if own == english else f"{own}（{english}）：{definition}"


@functools.cache
def terms(language: str, docs: Path = DOCS) -> tuple[Term, ...]:
    """The terms that get a tooltip on the pages of ``language``, with the glossary's definitions."""
    data = load(docs / "data" / "tooltips.yml", schema=docs / "data" / "tooltips.schema.json",
                error=TooltipDataError)
    glossary = _glossary_terms(docs / language / "glossary.md", language)
    found = []
    for index, entry in enumerate(data.value["terms"]):
        key = entry["glossary"]
        if key not in glossary:
            raise data.error(("terms", index, "glossary"), f"no row of docs/{language}/glossary.md has the "
                                                            f"English term {key!r}")
        own, english, definition = glossary[key]
        found.append(Term(key, _tooltip(own, english, definition, language), tuple(entry.get(language, ())),
                          tuple(entry.get("code", ()))))
    return tuple(found)


@functools.cache
def glossary_words(language: str, docs: Path = DOCS) -> tuple[str, ...]:
    """Every term of the page language's glossary, without what it adds in parentheses, code names left out."""
    words = set()
    for own, _english, _definition in _glossary_terms(docs / language / "glossary.md", language).values():
        word = _PARENTHESES.sub("", own).strip()  # "remove (a hook)": remove
        if word and "`" not in word:
            words.add(word)
    return tuple(sorted(words))


class Matcher:
    """Finds the terms in a text: at each place, the longest word known, a term's form or a glossary term."""

    def __init__(self, known: tuple[Term, ...], others: tuple[str, ...] = ()):
        self.by_word: dict[str, Term] = {}
        for term in known:
            for word in term.words:
                self.by_word[word.casefold()] = term
        self.by_code = {word: term for term in known for word in term.code}
        words = sorted({*self.by_word, *(word.casefold() for word in others)}, key=len, reverse=True)
        self.pattern = re.compile("|".join(map(_alternative, words)) or r"(?!)", re.IGNORECASE)

    def words(self, text: str) -> list[tuple[int, int, Term]]:
        """(start, end, term) of every form of a term in ``text``, left to right (none inside a longer word)."""
        found = []
        for match in self.pattern.finditer(text):
            term = self._term(match.group().casefold())
            if term is not None:
                found.append((match.start(), match.end(), term))
        return found

    def _term(self, word: str) -> Term | None:
        """The term a matched word is a form of, in the singular or the plural; None for a glossary term."""
        for singular in (word, word.removesuffix("es"), word.removesuffix("s")):
            if singular in self.by_word:
                return self.by_word[singular]
        return None

    def code(self, text: str) -> Term | None:
        """The term that inline code names: its whole text, or an attribute of a name (``y.grad_fn``)."""
        text = text.strip()
        return self.by_code.get(text) or self.by_code.get(text.rsplit(".", 1)[-1]) if re.fullmatch(
            r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*", text) else None


def _alternative(word: str) -> str:
    """A word as a pattern: Chinese anywhere; English as a whole word (a glossary term also in the plural)."""
    escaped = re.escape(word)
    if _CJK.search(word):
        return escaped
    return rf"(?<![\w-]){escaped}(?:e?s)?(?![\w-])"


def _abbr(inner: str, term: Term) -> str:
    return f'<abbr title="{html.escape(term.tooltip, quote=True)}">{inner}</abbr>'


def add_tooltips(page_html: str, matcher: Matcher) -> str:
    """``page_html`` with a tooltip on the first occurrence of each term in its prose and inline code."""
    done: set[str] = set()
    found = pieces(page_html)
    for piece in found:
        if piece.kind == "code":
            term = matcher.code(piece.text)
            if term is not None and term.key not in done:
                done.add(term.key)
                piece.html = _abbr(piece.html, term)
        elif piece.kind == "text":
            piece.html = _text_with_tooltips(piece, matcher, done)
    return join(found)


def _text_with_tooltips(piece: Piece, matcher: Matcher, done: set[str]) -> str:
    """The piece's HTML with the first occurrence of each term not yet ``done`` wrapped (the text is HTML:
    the forms hold no ``&``, ``<`` or ``>``, so they are found in it as written)."""
    out, last = [], 0
    for start, end, term in matcher.words(piece.html):
        if term.key in done:
            continue
        done.add(term.key)
        out += [piece.html[last:start], _abbr(piece.html[start:end], term)]
        last = end
    return "".join(out) + piece.html[last:]


@functools.cache
def matcher(language: str, docs: Path = DOCS) -> Matcher:
    """The matcher of a language's pages, from the data file and the language's glossary."""
    return Matcher(terms(language, docs), glossary_words(language, docs))
