"""The error index: one page per autograd message, true to the list of messages torch defines.

``docs/data/autograd-messages.yml`` lists the messages of the pinned torch (derived from its source,
``tests/test_autograd_messages.py``). A message that an entry explains names it: ``entry: errors/ID.md``,
the page ``docs/LANG/errors/ID.md`` in each language, ID being the message's id (two wordings of one
error, such as a message and its longer variant, may share the page of the first). Per entry
(``pytest -k ID`` selects it), in both languages:

* the page is the entry of the message its file is named after, whose status says it has one;
* its title is the message as a reader pastes it: ``Type: text`` as the page's own example prints it;
* its sections, in this order (others may come between): The message, Why, Fixes, Where you meet it,
  and Asked by users where users did (Chinese: 报错信息, 原因, 解决办法, 在哪里会遇到, 用户的提问); the short
  answer comes first and runs alone (``tests/test_entry_points.py``);
* "The message" shows the message: a block whose asserted output or warnings print it (status
  ``reproduced``), or a block declared not run with its reason (``gpu``, ``multi-machine``);
* the fix runs: the short answer's block, or a block in "Fixes" (its asserted output shows it working);
* the index, both troubleshooting pages, links the entry from its message's row;
* every question of the bank (``docs/data/questions.yml``) that quotes the message is linked from
  "Asked by users".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitepages import LANGUAGES, ROOT, parse
from sitepages.data import load
from sitepages.messages import message_regex, printed_regex
from sitepages.questions import load_bank
from sitepages.sections import plain_title, sections
from sitepages.tables import page_tables
from tests.test_troubleshooting_index import Printed, _covers

DATA = ROOT / "docs/data/autograd-messages.yml"
SCHEMA = ROOT / "docs/data/autograd-messages.schema.json"
INDEX = {language: Path(f"docs/{language}/troubleshooting.md") for language in LANGUAGES}
SECTIONS = {
    "en": ("The message", "Why", "Fixes", "Where you meet it", "Asked by users"),
    "zh": ("报错信息", "原因", "解决办法", "在哪里会遇到", "用户的提问"),
}
WITH_ENTRY = ("reproduced", "gpu", "multi-machine")  # statuses whose message may have a page
NOT_RUN = ("gpu", "multi-machine")


@dataclass(frozen=True)
class Message:
    id: str
    type: str
    text: str
    status: str
    entry: str | None
    where: str  # file:line in the data
    family: str = ""

    def pattern(self, typed: bool = True) -> re.Pattern[str]:
        """The printed message (``typed``: after its type), as sitepages.messages matches it."""
        return re.compile(printed_regex(self.type, self.text) if typed else message_regex(self.text))


def load_messages(path: Path = DATA) -> list[Message]:
    data = load(path, SCHEMA)
    return [Message(m["id"], m["type"], m["text"], m["status"], m.get("entry"), data.where("messages", i), m["family"])
            for i, m in enumerate(data.value["messages"])]


MESSAGES = load_messages()
BY_ID = {message.id: message for message in MESSAGES}
ENTRIES = sorted({path.stem for language in LANGUAGES for path in (ROOT / "docs" / language / "errors").glob("*.md")})


def _one_line(text: str) -> str:
    return " ".join(text.split())


def shown(blocks) -> str:
    """What the blocks print and warn, as a reader sees it."""
    return "\n".join(part.text for block in blocks for part in (block.output, block.warnings) if part is not None)


def section_blocks(page: Path) -> dict[str, list]:
    """Each ## section's plain title -> its blocks (a short answer before the first ## belongs to none)."""
    heads = [s for s in sections(page) if s.level == 2]
    blocks = parse(page)
    found: dict[str, list] = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].line if i + 1 < len(heads) else float("inf")
        found[plain_title(head.title)] = [b for b in blocks if head.line < b.line < end]
    return found


def entry_problems(entry_id: str, language: str, messages: dict[str, Message] = BY_ID,
                   root: Path = ROOT) -> list[str]:
    """What is wrong with docs/LANGUAGE/errors/ENTRY_ID.md, one line each, naming the file and line."""
    page = root / "docs" / language / "errors" / f"{entry_id}.md"
    shown_path = page.relative_to(root)
    if not page.is_file():
        return [f"{shown_path}: missing; every entry exists in {', '.join(LANGUAGES)}"]
    message = messages.get(entry_id)
    shared = [m for m in messages.values() if m.entry == f"errors/{entry_id}.md" and m.id != entry_id]
    if message is None:
        return [f"{shown_path}: no message of {DATA.relative_to(ROOT)} has the id {entry_id!r}; name the page "
                "after the message it explains"]
    problems = []
    if message.entry != f"errors/{entry_id}.md" or message.status not in WITH_ENTRY:
        problems.append(f"{message.where}: message {entry_id!r} has status {message.status!r} and entry "
                        f"{message.entry!r}; expected one of {WITH_ENTRY} and errors/{entry_id}.md")
    titles = [s for s in sections(page) if s.level == 1]
    heads = section_blocks(page)
    order = [title for title in heads if title in SECTIONS[language]]
    expected = [title for title in SECTIONS[language] if title in order or title != SECTIONS[language][-1]]
    if order != expected:
        problems.append(f"{shown_path}: sections {order}; expected {list(SECTIONS[language])} in this order "
                        f"(the last only where users asked)")
    reproduce = heads.get(SECTIONS[language][0], [])
    printed = _one_line(shown(b for b in reproduce if b.executed))
    everywhere = _one_line(shown(b for b in parse(page) if b.executed))
    if message.status in NOT_RUN:
        if not any(b.skip_reason for b in reproduce):
            problems.append(f"{shown_path}: {message.status} message, but no block of "
                            f"'{SECTIONS[language][0]}' is declared not run with its reason")
    elif not message.pattern().search(printed):
        problems.append(f"{shown_path}: '{SECTIONS[language][0]}' prints no line matching "
                        f"{message.type}: {message.text[:100]!r} ({message.where}); it printed {printed[:200]!r}")
    # A second wording that shares the page may be shown in any of its sections, or be a later line of the
    # page's message (DDP's lists of parameters), printed without a type of its own.
    problems += [f"{shown_path}: no block prints {m.type}: {m.text[:100]!r} ({m.where}), which names this page"
                 for m in shared if m.status not in NOT_RUN and not m.pattern(typed=False).search(everywhere)]
    if not titles:
        problems.append(f"{shown_path}:1: no title; expected '# {message.type}: ...' as the example prints it")
    else:
        title = _one_line(plain_title(titles[0].title)).rstrip(".…")
        if not title.startswith(f"{message.type}: "):
            problems.append(f"{shown_path}:{titles[0].line}: title {title!r} does not start with {message.type}:")
        elif message.status not in NOT_RUN and title not in printed:
            problems.append(f"{shown_path}:{titles[0].line}: title {title!r} is not what the page prints: "
                            f"{printed[:200]!r}")
    # The fix runs: in "Fixes", or in the short answer before the first section (which runs alone,
    # tests/test_entry_points.py). A fix block may show the failure first and then the fix (one session),
    # so its output is not checked for the message; that the fix works is what its asserted output shows.
    first = min((s.line for s in sections(page) if s.level == 2), default=0)
    fixes = [b for b in heads.get(SECTIONS[language][2], []) if b.executed]
    short_answer = [b for b in parse(page) if b.executed and b.line < first]
    if not fixes and not short_answer and message.status not in NOT_RUN:
        problems.append(f"{shown_path}: neither the short answer nor '{SECTIONS[language][2]}' runs a block")
    return problems


def index_links(language: str) -> dict[str, list[str]]:
    """errors/ID.md -> the code spans of the index rows that link it."""
    links: dict[str, list[str]] = {}
    for table in page_tables(ROOT / INDEX[language]):
        for row in table.rows:
            for link in row.cells[0].links:
                if link.startswith("errors/"):
                    links.setdefault(link.partition("#")[0], []).extend(row.cells[0].code)
    return links


def printed_line(message: Message, language: str = "en") -> str | None:
    """The line of the entry's "The message" section that prints the message, as a reader copies it."""
    page = ROOT / "docs" / language / (message.entry or "")
    if not page.is_file():
        return None
    blocks = section_blocks(page).get(SECTIONS[language][0], [])
    lines = [line.strip() for line in shown(b for b in blocks if b.executed).splitlines()]
    return next((line for line in lines if message.pattern().match(line)), None)


INDEX_LINKS = {language: index_links(language) for language in LANGUAGES}
QUESTIONS = load_bank().questions


@pytest.mark.parametrize("entry_id", ENTRIES)
def test_entry(entry_id):
    problems = [p for language in LANGUAGES for p in entry_problems(entry_id, language)]
    for message in (m for m in MESSAGES if m.entry == f"errors/{entry_id}.md"):
        for language in LANGUAGES:
            spans = INDEX_LINKS[language].get(f"errors/{entry_id}.md", [])
            line = printed_line(message) or f"{message.type}: {message.text}"
            kind, _, text = line.partition(": ")
            if not any(_covers((span.partition(": ")[0], span.partition(": ")[2]), Printed(entry_id, kind, text))
                       for span in spans):
                problems.append(f"{INDEX[language]}: no table row `{message.type}: {message.text[:60]}...` links "
                                f"errors/{entry_id}.md (rows linking it: {spans})")
        for question in QUESTIONS:
            if question.error and message.pattern().match(_one_line(question.error)):  # quotes this message
                for language in LANGUAGES:
                    page = ROOT / "docs" / language / "errors" / f"{entry_id}.md"
                    if page.is_file() and f"questions.md#q-{question.id}" not in page.read_text(encoding="utf-8"):
                        problems.append(f"{page.relative_to(ROOT)}: the bank's question {question.id!r} "
                                        f"(docs/data/questions.yml:{question.line}) quotes this message; link it "
                                        f"under '{SECTIONS[language][4]}' as ../questions.md#q-{question.id}")
    assert not problems, "\n".join(problems)


def test_every_message_with_an_entry_has_its_page():
    problems = [f"{m.where}: {m.id!r} names entry {m.entry!r}, which is not a page of docs/{language}/"
                for m in MESSAGES if m.entry for language in LANGUAGES
                if not (ROOT / "docs" / language / m.entry).is_file()]
    problems += [f"{m.where}: {m.id!r} has status reproduced but no entry" for m in MESSAGES
                 if m.status == "reproduced" and not m.entry]
    assert not problems, "\n".join(problems)


def test_the_index_is_not_empty():
    """Guards against a parser change that would make the checks above vacuous."""
    assert ENTRIES and all(INDEX_LINKS[language] for language in LANGUAGES)


# --- the checks fail on a broken entry --------------------------------------------

GOOD = '''# RuntimeError: grad can be implicitly created only for scalar outputs

!!! short-answer "Short answer"

    Reduce to a scalar.

    ```python
    print("fixed")
    ```

    <!--pytest-codeblocks:expected-output-->

    ```text title="Output"
    fixed
    ```

## The message

```python
print("RuntimeError: grad can be implicitly created only for scalar outputs")
```

<!--pytest-codeblocks:expected-output-->
```text title="Output"
RuntimeError: grad can be implicitly created only for scalar outputs
```

## Why

Because.

## Fixes

```python
print("tensor([2., 2.])")
```

<!--pytest-codeblocks:expected-output-->
```text title="Output"
tensor([2., 2.])
```

## Where you meet it

Here.

## Asked by users

Nobody.
'''
SCALAR = Message("scalar", "RuntimeError", "grad can be implicitly created only for scalar outputs", "reproduced",
                 "errors/scalar.md", "docs/data/autograd-messages.yml:10")


def _site(tmp_path, text, message=SCALAR):
    for language in LANGUAGES:
        page = tmp_path / "docs" / language / "errors" / "scalar.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        for english, chinese in zip(SECTIONS["en"], SECTIONS[language], strict=True):
            text = text.replace(f"## {english}\n", f"## {chinese}\n")
        page.write_text(text, encoding="utf-8")
    return {"scalar": message}


def test_a_good_entry_passes(tmp_path):
    assert entry_problems("scalar", "en", _site(tmp_path, GOOD), tmp_path) == []
    assert entry_problems("scalar", "zh", _site(tmp_path, GOOD), tmp_path) == []


@pytest.mark.parametrize("change, expected", [
    (lambda t: t.replace('print("RuntimeError: grad', 'print("RuntimeError: no grad').replace(
        "RuntimeError: grad can be implicitly created only for scalar outputs\n```\n\n## Why",
        "RuntimeError: no grad can be implicitly created only for scalar outputs\n```\n\n## Why"),
     "'The message' prints no line matching RuntimeError"),
    (lambda t: t.replace("# RuntimeError: grad can be", "# RuntimeError: gradient can be"),
     "is not what the page prints"),
    (lambda t: t.replace("## Why", "## Reasons"), "sections ['The message', 'Fixes'"),
    (lambda t: t.replace('```python\nprint("tensor([2., 2.])")\n```\n\n<!--pytest-codeblocks:expected-output-->\n'
                         '```text title="Output"\ntensor([2., 2.])\n```\n', "No code.\n").replace(
        '    ```python\n    print("fixed")\n    ```\n\n    <!--pytest-codeblocks:expected-output-->\n\n'
        '    ```text title="Output"\n    fixed\n    ```\n', ""),
     "neither the short answer nor 'Fixes' runs a block"),
])
def test_a_broken_entry_says_what_and_where(tmp_path, change, expected):
    problems = entry_problems("scalar", "en", _site(tmp_path, change(GOOD)), tmp_path)
    assert any(expected in problem and "docs/en/errors/scalar.md" in problem for problem in problems), problems


def test_a_page_without_its_message_or_status_is_named(tmp_path):
    _site(tmp_path, GOOD)
    assert "no message of" in entry_problems("scalar", "en", {}, tmp_path)[0]
    pending = Message(**{**SCALAR.__dict__, "status": "pending"})
    problems = entry_problems("scalar", "en", _site(tmp_path, GOOD, pending), tmp_path)
    assert any("has status 'pending'" in problem for problem in problems), problems


def test_the_search_lookup_names_a_message_whose_entry_is_missing(tmp_path):
    """docs/hooks/error_message_lookup.py: a message naming an entry without its page stops the build, saying
    which message, where in the data, and which page is missing."""
    from error_message_lookup import lookup  # noqa: PLC0415 (a build hook, beside sitepages)

    from sitepages.data import DataError  # noqa: PLC0415

    data = tmp_path / "autograd-messages.yml"
    data.write_text(DATA.read_text(encoding="utf-8"), encoding="utf-8")
    first = next(message for message in MESSAGES if message.entry)
    for language in LANGUAGES:
        (tmp_path / language / "errors").mkdir(parents=True)
        for message in MESSAGES:
            if message.entry:
                (tmp_path / language / message.entry).touch()
    (tmp_path / "zh" / first.entry).unlink()
    with pytest.raises(DataError, match=rf"autograd-messages.yml:\d+: entry '{first.entry}' of message "
                                        rf"'{first.id}' has no page docs/zh/{first.entry}"):
        lookup(docs=tmp_path, data=data)
    (tmp_path / "zh" / first.entry).touch()
    assert [first.type, first.text, first.entry.removesuffix(".md") + "/", first.pattern().pattern,
            first.pattern(typed=False).pattern] in lookup(docs=tmp_path, data=data)
