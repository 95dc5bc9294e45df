"""The "Questions people ask" page of each language, rendered from the question bank.

``docs/LANG/questions.md`` holds the prose and one marker line,
``<!-- question-bank -->``, which this hook replaces with the bank
(``docs/data/questions.yml``, loaded and validated by ``sitepages.questions``):
a section per theme, and per question the reader's words, the error it
quotes, a link to the section that answers it (titled with that section's
heading, read from the page) or the reason it is out of scope, and the
threads where it was asked. The counts in the summary come from the data, so
they cannot drift. A link to a missing page or anchor fails ``mkdocs build
--strict`` like any other link.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import urlsplit

import markdown
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from pymdownx.slugs import slugify

from sitepages import DOCS, language_of, parse_page
from sitepages.questions import load_bank
from sitepages.strings import strings

MARKER = "<!-- question-bank -->"

_HEADING = re.compile(r"^(#{2,6})\s+(.+?)\s*$")


@functools.cache
def section_titles(page: Path) -> dict[str, str]:
    """Anchor -> heading text (Markdown) of a page's sections, with the ids the site's toc gives them."""
    text = page.read_text(encoding="utf-8").splitlines()
    in_fence = set()
    for block in parse_page(page):
        in_fence.update(range(block.line, block.end + 1))
        if block.output and block.output.line:
            in_fence.update(range(block.output.line, block.output.end + 1))
    headings = [line for number, line in enumerate(text, 1) if number not in in_fence and _HEADING.match(line)]
    # The same Markdown extensions as the site (mkdocs.yml) give the same ids; only the headings are converted.
    converter = markdown.Markdown(
        extensions=["attr_list", "toc"], extension_configs={"toc": {"slugify": slugify(case="lower")}}
    )
    converter.convert("\n\n".join(headings))
    flat = []

    def walk(tokens):  # pre-order is document order
        for token in tokens:
            flat.append(token["id"])
            walk(token["children"])

    walk(converter.toc_tokens)
    return {anchor: _strip_attributes(heading) for anchor, heading in zip(flat, headings, strict=True)}


def _strip_attributes(heading: str) -> str:
    return re.sub(r"\s*\{[^}]*\}\s*$", "", _HEADING.match(heading).group(2))


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


_GITHUB_THREAD = re.compile(r"/([^/]+/[^/]+)/(?:issues|pull|discussions)/(\d+)")


def thread_label(url: str) -> str:
    """What a thread's link says: owner/repo#123 for a GitHub thread, else the site's name."""
    parts = urlsplit(url)
    site = parts.netloc.removeprefix("www.")
    found = _GITHUB_THREAD.match(parts.path) if site == "github.com" else None
    return f"{found[1]}#{found[2]}" if found else site


def _thread_links(question, language: str) -> str:
    words = strings("question_bank", language)
    links = []
    for thread_language, urls in question.threads.items():
        note = words["chinese"] if thread_language == "zh" else words["english"]
        links += [f"[{thread_label(url)}]({url}){note}" for url in urls]
    return " · ".join(links)


def render(language: str, docs: Path = DOCS) -> str:
    bank = load_bank()
    words = strings("question_bank", language)
    answered = sum(question.answer is not None for question in bank.questions)
    lines = [
        words["summary"].format(
            questions=len(bank.questions),
            threads=bank.thread_count(),
            chinese=bank.thread_count("zh"),
            themes=len(bank.themes),
            answered=answered,
            out=len(bank.questions) - answered,
        ),
        "",
    ]
    for theme in bank.themes:
        lines += [f"## {theme.title[language]} {{ #{theme.id} }}", ""]
        for question in bank.in_theme(theme.id):
            item = [f'<span id="q-{question.id}"></span>**{question.text[language]}**']
            if question.error:
                item.append(_code(question.error))
            if question.answer:
                target = question.answer[language]
                page, _, anchor = target.partition("#")
                title = section_titles(docs / language / page).get(anchor, anchor)
                item.append(f"{words['answer']}[{title}]({target})")
            else:
                item.append(words["out"] + question.out_of_scope[language])
            item.append(words["asked"] + _thread_links(question, language))
            lines.append("- " + "  \n  ".join(item))
        lines.append("")
    return "\n".join(lines)


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render(language_of(page.file.src_uri), Path(config.docs_dir)))
