"""The troubleshooting page lists every error and warning that any page prints.

A reader pastes an error message into the search box; the troubleshooting
page is where it must lead. So every exception or warning text in the
expected output or warnings of any English page or notebook (a line such as
``RuntimeError: message`` or ``UserWarning message``, as pages print them)
must appear in a table of docs/en/troubleshooting.md, in a first-column
code span ``Type: message``, with a link to the page that explains it. The
Chinese troubleshooting page lists the same code spans (the messages stay in
English there), and titles its sections with the same English messages.

A listed message covers a printed one when the type is the same and the
listed text matches the start of the printed message:

* only its stable leading part need be listed, at least MIN_LISTED
  characters of it (or the whole message);
* digits match any digits (``index 1`` covers ``index 0``);
* ``<...>`` (any text in angle brackets) stands for a part that varies,
  such as a node or function name: ``<...>(): functions with out=...``.

Messages that a page's own code raises or warns (``raise ValueError("...")``
in a page or in the snippet files it includes) are the site's own, not
torch's, and are explained where that code is; they are not required here.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitepages import ROOT, notebooks, page_id, pages, parse
from sitepages.tables import page_tables

ENGLISH = Path("docs/en/troubleshooting.md")
CHINESE = Path("docs/zh/troubleshooting.md")
MIN_LISTED = 15
_TYPE = r"[A-Z][A-Za-z]*(?:Error|Warning|Exception)"
# In printed output: "RuntimeError: message" or "UserWarning message", anywhere in the line.
PRINTED = re.compile(rf"\b(?P<type>{_TYPE})(?::\s+|\s+)(?P<message>\S.*)$")
# In a table's first column: `RuntimeError: message`.
LISTED = re.compile(rf"^(?P<type>{_TYPE}): (?P<message>.+)$")
PLACEHOLDER = re.compile(r"<[^<>]*>")
ERROR_HEADING = re.compile(rf"^## (?P<text>{_TYPE}: .*?)(?:（.*）)?\s*(?:\{{[^}}]*\}})?\s*$")


@dataclass(frozen=True)
class Printed:
    where: str  # page:line, or notebook, cell N
    type: str
    message: str


def _normal(text: str) -> str:
    return re.sub(r"\d+", "0", " ".join(text.split()))


def printed_messages(path: Path) -> list[Printed]:
    """Every exception or warning line in the page's (or notebook's) expected outputs and warnings blocks."""
    found = []
    for block in parse(path):
        if not block.executed:
            continue
        for shown in (block.output, block.warnings):
            if shown is None:
                continue
            for offset, line in enumerate(shown.text.splitlines()):
                match = PRINTED.search(line)
                if not match:
                    continue
                where = block.where if block.cell is not None else f"{path}:{shown.line + 1 + offset}"
                found.append(Printed(where, match["type"], match["message"].strip()))
    return found


def _literal_prefix(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        prefix = ""
        for part in node.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                break
            prefix += part.value
        return prefix
    return ""


def own_message_prefixes(path: Path) -> set[str]:
    """The literal starts of the messages that the page's own code raises or warns."""
    prefixes = set()
    for block in parse(path):
        if not block.executed:
            continue
        try:
            tree = ast.parse(block.code)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            call = None
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                call = node.exc
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "warn":
                call = node
            if call is not None and call.args:
                prefix = _literal_prefix(call.args[0])
                if len(prefix.strip()) >= 8:
                    prefixes.add(prefix)
    return prefixes


def listed_messages(page: Path) -> list[tuple[str, str]]:
    """(type, message) of each `Type: message` code span in the first column of the page's tables."""
    return [(match["type"], match["message"])
            for table in page_tables(ROOT / page) for row in table.rows
            for span in row.cells[0].code if (match := LISTED.match(span))]


def _covers(listed: tuple[str, str], printed: Printed) -> bool:
    kind, text = listed
    if kind != printed.type:
        return False
    literal = _normal(PLACEHOLDER.sub("", text))
    message = _normal(printed.message)
    if len(literal) < MIN_LISTED and literal != message:
        return False
    parts = [re.escape(_normal(part)) for part in PLACEHOLDER.split(text)]
    return re.match(r".+?".join(parts), message) is not None


def unlisted(page_paths: list[Path], troubleshooting: Path) -> list[str]:
    """One line per printed message that the troubleshooting page's tables do not list."""
    listed = listed_messages(troubleshooting)
    problems = []
    for path in page_paths:
        own = own_message_prefixes(path)
        for printed in printed_messages(path):
            if any(printed.message.startswith(prefix) for prefix in own):
                continue
            if not any(_covers(entry, printed) for entry in listed):
                problems.append(
                    f"{printed.where}: {printed.type}: {printed.message[:120]} -- not listed on "
                    f"{troubleshooting}; add a row `{printed.type}: <its stable leading part>` "
                    "to its table of messages, linking to the section that explains it"
                )
    return problems


def error_headings(page: Path) -> list[str]:
    """The English message of each `## Type: message` section title (Chinese titles add a gloss)."""
    return [
        match["text"].strip()
        for line in (ROOT / page).read_text(encoding="utf-8").splitlines()
        if (match := ERROR_HEADING.match(line))
    ]


# --- the site ----------------------------------------------------------------

ALL_ENGLISH = pages("en") + notebooks("en")


@pytest.mark.parametrize("source", ALL_ENGLISH, ids=page_id)
def test_every_error_the_page_prints_is_listed_on_both_troubleshooting_pages(source):
    """Per English page or notebook (a Chinese twin prints the same): ``pytest -k PAGE`` selects it."""
    problems = unlisted([source], ENGLISH) + unlisted([source], CHINESE)
    assert not problems, "\n".join(problems)


def test_both_troubleshooting_pages_list_the_same_messages():
    english, chinese = listed_messages(ENGLISH), listed_messages(CHINESE)
    assert english == chinese, (
        f"only in {ENGLISH}: {[m for m in english if m not in chinese]}\n"
        f"only in {CHINESE}: {[m for m in chinese if m not in english]}"
    )


def test_both_troubleshooting_pages_have_the_same_error_sections():
    english, chinese = error_headings(ENGLISH), error_headings(CHINESE)
    assert english and english == chinese, (
        f"only in {ENGLISH}: {[h for h in english if h not in chinese]}\n"
        f"only in {CHINESE}: {[h for h in chinese if h not in english]}"
    )


def test_the_index_sees_the_pages_outputs():
    """Guards against a parser change that would make the checks above vacuous."""
    messages = {p.message for path in ALL_ENGLISH for p in printed_messages(path)}
    assert any(m.startswith("Trying to backward through the graph a second time") for m in messages)
    assert len(listed_messages(ENGLISH)) >= 30


# --- the check does fail -----------------------------------------------------

PAGE = '''# A page

```python
import warnings

try:
    raise RuntimeError("the page's own demo error")
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")
print("RuntimeError: this message is listed nowhere on the site")
print("step 3: RuntimeError: Trying to backward through the graph a second time (and more)")
print("UserWarning")
```

<!--pytest-codeblocks:expected-output-->
```text title="Output"
RuntimeError: the page's own demo error
RuntimeError: this message is listed nowhere on the site
step 3: RuntimeError: Trying to backward through the graph a second time (and more)
UserWarning
```
'''


def test_an_unlisted_error_is_reported_with_page_and_line(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    problems = unlisted([page], ENGLISH)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{page}:18: RuntimeError: this message is listed nowhere on the site")
    assert f"not listed on {ENGLISH}" in problems[0]


def test_digits_and_placeholders_match_what_varies():
    assert _covers(("RuntimeError", "The differentiated Tensor at index 1 appears"),
                   Printed("x", "RuntimeError", "The differentiated Tensor at index 0 appears to not"))
    assert _covers(("RuntimeError", "<...>(): functions with out=... arguments don't support"),
                   Printed("x", "RuntimeError", "cat(): functions with out=... arguments don't support x"))
    assert not _covers(("RuntimeError", "<...>(): functions"),  # too little is fixed
                       Printed("x", "RuntimeError", "cat(): functions with out=..."))
    assert not _covers(("ValueError", "can't optimize a non-leaf Tensor"),
                       Printed("x", "RuntimeError", "can't optimize a non-leaf Tensor"))
