"""The list of autograd's messages (docs/data/autograd-messages.yml) agrees with the pinned torch.

The file validates against its schema, its ids are unique and each status has
the field it requires (``load_messages``); ``derive`` against the installed
torch finds no message in the families' Python sources that the list lacks,
none in the list that the build lacks (a C++ message's literal parts must be in
the compiled libraries) and no line that moved. A bad file names its line, the
message id and what is wrong.

Every torch message that the site's pages print (``printed_messages`` of
tests/test_troubleshooting_index.py) or that the troubleshooting pages' tables
list is a message of the list or is declared ``outside`` autograd in the data
file, with the reason. The matching rules are the troubleshooting index's:
``<...>`` stands for any text, digits match any digits, and a listed text covers
a printed message that starts with it; and, since a page may print only the
start of a long message (``str(error)[:80] + "..."``) and a troubleshooting row
lists only its stable leading part, a printed or listed text of at least
MIN_LISTED characters that is the start of a listed message matches it too. A
type matches by its class name: ``torch._dynamo.exc.Unsupported`` (as a
traceback and the troubleshooting rows print it) is ``Unsupported``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from sitepages import ROOT
from sitepages.data import load
from sitepages.tables import page_tables
from tests.test_troubleshooting_index import (
    ALL_ENGLISH,
    CHINESE,
    ENGLISH,
    MIN_LISTED,
    PLACEHOLDER,
    Printed,
    _covers,
    _normal,
    own_message_prefixes,
    printed_messages,
)
from tests.tools.autograd_messages.binary import literal_misses
from tests.tools.autograd_messages.derive import DATA, SCHEMA, MessagesError, derive, load_messages
from tests.tools.autograd_messages.scan import scan_file

MESSAGE = "  - id: some-message\n    type: RuntimeError\n    text: some text\n    family: engine\n" \
          "    source: torch/csrc/autograd/engine.cpp\n"


@pytest.fixture(scope="module")
def report():
    return derive(load_messages(DATA), sys.executable)


def test_the_list_agrees_with_the_installed_torch(report):
    problems = [f"new in {item.source}: {item.type}: {item.text[:120]}" for item in report.new]
    problems += [f"{message['id']} is not in torch {report.torch}: {why}" for message, why in report.gone]
    problems += [f"{message['id']} moved: {old} -> {new}" for message, old, new in report.moved]
    problems += [f"module not found: {module}" for module in report.missing_modules]
    assert not problems, (f"{DATA.relative_to(ROOT)} and torch {report.torch} disagree "
                          f"(python -m tests.tools autograd_messages derive):\n" + "\n".join(problems))


def write(tmp_path, messages):
    path = tmp_path / "autograd-messages.yml"
    path.write_text("torch: 2.13.0\nmessages:\n" + messages, encoding="utf-8")
    return path


@pytest.mark.parametrize(("messages", "expected"), [
    ((MESSAGE + "    status: pending\n") * 2, "message id 'some-message' is given twice (first as message 1)"),
    (MESSAGE + "    status: gpu\n", "message 'some-message': status gpu requires 'reason'"),
    (MESSAGE + "    status: reproduced\n", "message 'some-message': status reproduced requires 'entry'"),
    (MESSAGE + "    status: pending\n    reason: why\n", "'reason' is only for status gpu or multi-machine or "
                                                         "unreachable, not pending"),
    (MESSAGE + "    status: done\n", "expected pending (no entry yet)"),
    (MESSAGE.replace("engine.cpp", "engine.cc") + "    status: pending\n", "expected where torch raises it"),
    (MESSAGE.replace("some text", "'some  text'") + "    status: pending\n", "text has runs of spaces"),
    (MESSAGE.replace("RuntimeError", "AssertionError") + "    status: pending\n",
     "an AssertionError is internal unless a user reaches it: say how in 'reachable'"),
    (MESSAGE + "    status: pending\n    reachable: how\n", "'reachable' is only for AssertionError, not RuntimeError"),
])
def test_a_bad_entry_names_its_line_and_what_is_wrong(tmp_path, messages, expected):
    with pytest.raises(MessagesError, match=r"autograd-messages\.yml:\d+: ") as raised:
        load_messages(write(tmp_path, messages))
    assert expected in str(raised.value)


def test_the_data_file_has_its_schemas_shape():
    load(DATA, SCHEMA)


def test_a_reworded_cpp_message_is_caught():
    text = "\0".join(["Trying to backward through the graph a second time ", "of tensors does not require grad"])
    assert literal_misses("Trying to backward through the graph a second time", text) == []
    assert literal_misses("element <...> of tensors does not require grad and does not have a grad_fn", text)
    assert literal_misses("Trying to backward through the graph a third time", text)


def test_a_message_split_over_literals_must_follow_their_ends():
    """Parts of a message in two literals must end one and begin (or end) the next: found in the middle of
    other literals, they are not the message (torch 2.13 has no "One of the differentiated Tensors appears")."""
    text = "\0".join(["One of the differentiated Tensors does not require grad",
                      "The differentiated Tensor at index ", " appears to not have been used in the graph.",
                      "Your training graph has changed in this iteration, ",
                      "Expected to have finished. Your training graph has changed, e.g., one parameter is unused.",
                      "another literal"])
    assert literal_misses("One of the differentiated Tensors appears to not have been used in the graph.", text)
    assert literal_misses("The differentiated Tensor at index <...> appears to not have been used in the graph.",
                          text) == []
    assert literal_misses("Your training graph has changed in this iteration, e.g., one parameter is unused.",
                          text) == []  # the second part ends a literal: the linker kept it inside a longer one


def _scanned(tmp_path, source: str) -> list[tuple]:
    """(line, type, text) of each message the scanner finds in a module holding ``source``."""
    module = tmp_path / "module.py"
    module.write_text(source, encoding="utf-8")
    return [(item.line, item.type, item.text) for item in scan_file(module, "torch/m.py", "engine", {})]


def test_the_scanner_reads_fstrings_variables_checks_and_warnings(tmp_path):
    found = _scanned(
        tmp_path,
        "import warnings, torch\n"
        "def f(x, n):\n"
        "    if n:\n"
        "        raise RuntimeError(f'got {n} tensors but ' 'expected one')\n"
        "    msg = 'a message built '\n"
        "    msg += 'in a variable'\n"
        "    raise ValueError(msg)\n"
        "    warnings.warn('deprecated thing %s' % n, FutureWarning)\n"
        "    torch._check(x, lambda: f'checked with {x}')\n")
    assert found == [(4, "RuntimeError", "got <...> tensors but expected one"),
                     (7, "ValueError", "a message built in a variable"),
                     (8, "FutureWarning", "deprecated thing <...>"),
                     (9, "RuntimeError", "checked with <...>")]


def test_the_scanner_prints_several_arguments_as_python_does(tmp_path):
    """BaseException's str() of several arguments is their tuple; an exception with its own __init__ differs."""
    found = _scanned(
        tmp_path,
        "def f(i, x):\n"
        "    raise GradcheckError('Mismatch for output with index: ', i, ' got: ', x)\n"
        "    raise ValueError(\"it's wrong\", i)\n"
        "    raise UncapturedHigherOrderOpError('does not work', i)\n")
    assert found == [(2, "GradcheckError", "('Mismatch for output with index: ', <...>"),
                     (3, "ValueError", '("it\'s wrong", <...>'),
                     (4, "UncapturedHigherOrderOpError", "does not work")]
    assert str(ValueError("it's wrong", 0)).startswith('("it\'s wrong", ')


# --- every message the site prints is in the list, or declared outside autograd ------------------------------

# A troubleshooting row's first code span: `Type: message`, the type perhaps with its module (torch._dynamo.exc.).
SPAN = re.compile(r"^(?:[a-z_][a-z0-9_]*\.)*(?P<type>[A-Z][A-Za-z]*(?:Error|Warning|Exception|Unsupported)): "
                  r"(?P<message>.+)$")


def site_messages(pages: list[Path], troubleshooting: list[Path]) -> list[Printed]:
    """What the pages print (not their own code's messages) and what the troubleshooting tables list."""
    found = []
    for path in pages:
        own = own_message_prefixes(path)
        found += [item for item in printed_messages(path) if not any(item.message.startswith(p) for p in own)]
    for page in troubleshooting:
        for table in page_tables(ROOT / page):
            for row in table.rows:
                for span in row.cells[0].code:
                    if match := SPAN.match(span):
                        found.append(Printed(f"{page}:{row.line}", match["type"], match["message"]))
    return found


def _starts(shown: str, parts: list[str]) -> int:
    """How many characters of ``shown`` the fixed parts match (-1 when none way fits) when ``shown`` is the
    start of a text whose fixed parts are ``parts``, with a hole between each two. ``shown`` must end in a
    fixed part, or in a hole that takes one word at most (a number, a name): a hole would take any ending."""
    first, rest = parts[0], parts[1:]
    if not shown.startswith(first):
        return len(shown) if shown and first.startswith(shown) else -1
    shown = shown[len(first):]
    if not shown:
        return len(first)
    if not rest:
        return -1
    if " " not in shown.strip() and len(shown) <= 40:  # printed up to a value in a hole
        return len(first)
    best = max((_starts(shown[i:], rest) for i in range(len(shown))), default=-1)
    return best + len(first) if best >= 0 else -1


def matches(kind: str, text: str, item: Printed) -> bool:
    """A listed message (type, text) is the one printed or listed as ``item`` (see the module's docstring)."""
    if kind.rsplit(".", 1)[-1] != item.type:
        return False
    if _covers((item.type, text), item):
        return True
    shown = _normal(re.sub(r"(\.\.\.|\u2026)$", "", item.message.strip()))
    if len(shown) < MIN_LISTED:
        return False
    return _starts(shown, [_normal(part) for part in PLACEHOLDER.split(text)]) >= MIN_LISTED


def not_in_the_list(items: list[Printed], data: dict) -> list[str]:
    known = [(m["type"], m["text"]) for m in data["messages"]] + [(o["type"], o["text"])
                                                                   for o in data.get("outside", [])]
    problems, seen = [], set()
    for item in items:
        if (item.type, item.message) in seen or any(matches(kind, text, item) for kind, text in known):
            continue
        seen.add((item.type, item.message))
        problems.append(f"{item.where}: {item.type}: {item.message[:120]} -- not in {DATA.relative_to(ROOT)}: "
                        "add it to 'messages' (id, type, text, family, source, status), or, if it is not "
                        "autograd's, to 'outside' (type, text, reason)")
    return problems


def test_every_message_the_site_prints_is_listed_or_declared_outside():
    data = load_messages(DATA).value
    items = site_messages(ALL_ENGLISH, [ENGLISH, CHINESE])
    assert len(items) > 100, "the site's printed and listed messages were not found"
    problems = not_in_the_list(items, data)
    assert not problems, "\n".join(problems)


def test_the_site_check_fails_on_a_message_that_is_not_listed():
    data = {"messages": [{"type": "RuntimeError", "text": "Trying to backward through the graph a second time "
                          "(or directly access saved tensors after they have already been freed). <...>"}],
            "outside": [{"type": "RuntimeError", "text": "mat1 and mat2 shapes cannot be multiplied", "reason": "-"}]}
    items = [Printed("p.md:3", "RuntimeError", "Trying to backward through the graph a second time (or directly "
                     "access saved tensors after they have already been freed). Saved intermediate values"),
             Printed("p.md:4", "RuntimeError", "Trying to backward through the graph a second time..."),
             Printed("t.md:9", "RuntimeError", "Trying to backward through the graph"),
             Printed("p.md:5", "RuntimeError", "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
             Printed("p.md:6", "RuntimeError", "Trying to backward through the graph a third time"),
             Printed("p.md:7", "ValueError", "Trying to backward through the graph a second time"),
             Printed("p.md:8", "RuntimeError", "Trying to")]
    problems = not_in_the_list(items, data)
    assert [problem.split(" --")[0] for problem in problems] == [
        "p.md:6: RuntimeError: Trying to backward through the graph a third time",
        "p.md:7: ValueError: Trying to backward through the graph a second time",
        "p.md:8: RuntimeError: Trying to"]
    assert "add it to 'messages'" in problems[0] and "to 'outside' (type, text, reason)" in problems[0]
