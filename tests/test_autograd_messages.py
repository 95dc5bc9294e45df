"""The list of autograd's messages (docs/data/autograd-messages.yml) agrees with the pinned torch.

The file validates against its schema, its ids are unique and each status has
the field it requires (``load_messages``); ``derive`` against the installed
torch finds no message in the families' Python sources that the list lacks,
none in the list that the build lacks (a C++ message's literal parts must be in
the compiled libraries) and no line that moved. A bad file names its line, the
message id and what is wrong.
"""

from __future__ import annotations

import sys

import pytest

from sitepages import ROOT
from sitepages.data import load
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


def test_the_scanner_reads_fstrings_variables_checks_and_warnings(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        "import warnings, torch\n"
        "def f(x, n):\n"
        "    if n:\n"
        "        raise RuntimeError(f'got {n} tensors but ' 'expected one')\n"
        "    msg = 'a message built '\n"
        "    msg += 'in a variable'\n"
        "    raise ValueError(msg)\n"
        "    warnings.warn('deprecated thing %s' % n, FutureWarning)\n"
        "    torch._check(x, lambda: f'checked with {x}')\n",
        encoding="utf-8")
    found = [(item.line, item.type, item.text) for item in scan_file(module, "torch/m.py", "engine", {})]
    assert found == [(4, "RuntimeError", "got <...> tensors but expected one"),
                     (7, "ValueError", "a message built in a variable"),
                     (8, "FutureWarning", "deprecated thing <...>"),
                     (9, "RuntimeError", "checked with <...>")]
