"""What the site says a block does on other torch releases, from small made-up data.

* log lines of ``LOG_LINES`` are no difference: a block that differs only by
  them is the same (Gloo's connection messages above all, also cut into each
  other by two processes);
* each note's one-line title says what differs: a warning missing, added or
  worded differently, the line that differs and how (a number, a quoted word, a
  message's wording), lines added or left out, the exception and its first
  line, what went to stderr; "prints something else" only when nothing more
  precise applies;
* an exception that follows from an earlier block's difference on the same
  release is said to, and links that block's note (``differences.cause``);
* the releases the code runs on and those its output is identical on are two
  ranges.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitepages import ROOT, parse
from sitepages.differences import Cause, Phrase, cause, first_line, phrases, sentence
from sitepages.torch_versions import (
    LOG_LINES,
    BlockResult,
    LogLine,
    digest,
    page_code_hash,
    page_result,
    page_results,
    running_range,
    unchanged_range,
    without_log_lines,
)
from sitepages.version_notes import block_notes, note_anchor

GLOO = ("[Gloo] Rank 1 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1\n"
        "[Gloo] Rank 0 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1\n")
# Two processes printing at once (stored as torch 2.8 and 2.10 printed them).
GLOO_CUT = [
    "[Gloo] Rank [Gloo] Rank 1 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1\n"
    "0 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1\n",
    "[Gloo] Rank [Gloo] Rank 0 is connected to 11 is connected to  peer ranks. 1Expected number of connected peer "
    "ranks is :  peer ranks. 1Expected number of connected peer ranks is : \n1\n",
    "[Gloo] Rank 0 is connected to 1 peer ranks. Expected number of connected peer ranks is : [Gloo] Rank 1\n"
    "1 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1\n",
]
EXAMPLES = {
    "gloo-connected": GLOO,
    "spawn-terminating": "W torch/multiprocessing/spawn.py:169] Terminating process 26792 via signal SIGTERM\n",
    "dynamo-event-logger": "W torch/_dynamo/utils.py:1915] [!0] ChromiumEventLogger: Start event not in stack, "
                           "ignoring\n",
}
PAGE = Path("docs/en/leaf-nodes.md")


def test_every_log_line_has_an_example_here():
    assert sorted(log_line.name for log_line in LOG_LINES) == sorted(EXAMPLES)


@pytest.mark.parametrize("log_line", LOG_LINES, ids=lambda log_line: log_line.name)
def test_a_log_line_is_removed_and_the_lines_around_it_kept(log_line):
    text = "rank 0: before\n" + EXAMPLES[log_line.name] + "rank 0: after\n"
    assert without_log_lines(text) == "rank 0: before\nrank 0: after\n"
    assert log_line.remove(text) == "rank 0: before\nrank 0: after\n", "another entry removed it, not this one"


@pytest.mark.parametrize("text", GLOO_CUT)
def test_gloo_lines_cut_into_each_other_are_removed(text):
    around = "rank 0 uses head a:\n{}rank 0: step 0\n"
    assert without_log_lines(around.format(text)) == around.format("")


def test_a_line_that_only_resembles_a_log_line_is_kept():
    kept = ["[Gloo] Rank 0 is connected to 1 peer ranks.\n",  # a part: not the whole line
            "rank 0: [Gloo] Rank 0 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1\n",
            "W torch/multiprocessing/spawn.py:169] Terminating process 1 via signal SIGKILL\n"]
    for line in kept:
        assert without_log_lines(line) == line
    two = LogLine("two", "a # b", "test")
    assert two.remove("a 1 a b 2 b\n") == "a 1 a b 2 b\n"  # one line: the template once, or nothing
    assert two.remove("a a\n1 2 b b\n") == "" and two.remove("a a\n1 2 b b c\n") == "a a\n1 2 b b c\n"


def _release(tmp_path: Path, release: str, blocks: list[dict], page: Path = PAGE) -> None:
    code = page_code_hash([block for block in parse(ROOT / page) if block.executed])
    stored = {"requested": release, "torch": release, "pages": {
        page.relative_to("docs/en").as_posix(): {"code": code, "blocks": blocks}}}
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / f"{release}.json").write_text(json.dumps(stored), encoding="utf-8")


def _blocks(page: Path = PAGE) -> list:
    return [block for block in parse(ROOT / page) if block.executed]


def _same(block) -> dict:
    return {"line": block.line, "stdout_hash": digest(block.shown)}


def test_a_block_that_differs_only_by_gloo_lines_is_the_same(tmp_path):
    """Fails when the Gloo entry leaves LOG_LINES: the block would print something else."""
    blocks = _blocks()
    entries = [_same(block) for block in blocks]
    entries[0] = {"line": blocks[0].line, "stdout": GLOO + blocks[0].shown}
    entries[1] = {"line": blocks[1].line, "stdout": blocks[1].shown, "stderr": GLOO_CUT[0]}
    _release(tmp_path, "2.8.0", entries)
    assert page_result(PAGE, "2.8.0", tmp_path).state == "same"
    entries[0] = {"line": blocks[0].line, "stdout": GLOO + blocks[0].shown + "one line more\n"}
    _release(tmp_path / "more", "2.8.0", entries)  # a folder of its own: releases() reads a folder once
    assert page_result(PAGE, "2.8.0", tmp_path / "more").state == "differs", "a real difference beside them counts"


def _result(text: str = "", state: str = "differs", stderr: str = "", printed: str = "") -> BlockResult:
    return BlockResult(state, text, stderr, printed)


def _said(shown: str, result: BlockResult, language: str = "en", count: int = 2) -> str:
    return sentence("2.0–2.7", count, phrases(shown, result), language)


WARNED = "None\n--- warnings ---\nUserWarning: The .grad attribute ... for more information.\n"
CASES = [  # (what the page shows, what the release did, the English title, the Chinese title)
    (WARNED, _result("None\n"), "torch 2.0–2.7 give no warning here", "torch 2.0–2.7 在这里不给出警告"),
    ("None\n", _result(WARNED), "torch 2.0–2.7 also give a UserWarning here",
     "torch 2.0–2.7 在这里还会给出 UserWarning"),
    (WARNED, _result(WARNED.replace("information.", "informations.")),
     "torch 2.0–2.7 word the warning differently", "torch 2.0–2.7 给出的警告措辞不同"),
    ("x: 2\ny: 3\n", _result("x: 2\ny: 4\n"), "torch 2.0–2.7 print 4 instead of 3 in line 2",
     "torch 2.0–2.7 第 2 行输出 4，而不是 3"),
    ("x: 2 3\n", _result("x: 1 4\n"), "torch 2.0–2.7 print different numbers in line 1",
     "torch 2.0–2.7 第 1 行输出的数字不同"),
    ("a\nb: ViewBackward0\n", _result("a\nb: UnsafeViewBackward0\n"),
     "torch 2.0–2.7 print `UnsafeViewBackward0` instead of `ViewBackward0` in line 2",
     "torch 2.0–2.7 第 2 行输出 `UnsafeViewBackward0`，而不是 `ViewBackward0`"),
    ("RuntimeError: output 0 of Sigmoid, at version 1\n", _result("RuntimeError: output 0 of SigmoidBackward0, at "
                                                                  "version 1\n"),
     "torch 2.0–2.7 word the RuntimeError in line 1 differently: `SigmoidBackward0` instead of `Sigmoid`",
     "torch 2.0–2.7 第 1 行的 RuntimeError 措辞不同：是 `SigmoidBackward0`，而不是 `Sigmoid`"),
    ("ok: one long line that says what happened\n", _result("RuntimeError: something went wrong in autograd\n"),
     "torch 2.0–2.7 print a RuntimeError in line 1", "torch 2.0–2.7 第 1 行输出了 RuntimeError"),
    ("a\nb\nc\n", _result("a\nb\nextra\nc\n"), "torch 2.0–2.7 print an extra line", "torch 2.0–2.7 多输出一行"),
    ("a\nb\nc\nd\n", _result("a\nd\n"), "torch 2.0–2.7 do not print lines 2–3", "torch 2.0–2.7 不输出第 2–3 行"),
    ("a\nb\nc\n", _result("a\nx, y\nz\nw\n"), "torch 2.0–2.7 print something else from line 2 on",
     "torch 2.0–2.7 从第 2 行起输出不同"),
    ("a\n", _result(""), "torch 2.0–2.7 print nothing", "torch 2.0–2.7 什么也不输出"),
    ("a\n", _result("AttributeError: 'Tensor' object has no attribute 'nbytes'", "raises"),
     "torch 2.0–2.7 raise `AttributeError: 'Tensor' object has no attribute 'nbytes'`",
     "torch 2.0–2.7 报错 `AttributeError: 'Tensor' object has no attribute 'nbytes'`"),
    ("t\n2 warnings\nfirst\n", _result("IndexError: list index out of range", "raises", printed="t\n0 warnings\n"),
     "torch 2.0–2.7 print 0 instead of 2 in line 2 and then raise `IndexError: list index out of range`",
     "torch 2.0–2.7 第 2 行输出 0，而不是 2，随后报错 `IndexError: list index out of range`"),
    ("a\n", _result("a\n", stderr="x.py:1: FutureWarning: `torch.cpu.amp.autocast(args...)` is deprecated.\n"),
     "torch 2.0–2.7 also write a FutureWarning to stderr", "torch 2.0–2.7 还会向 stderr 写出一条 FutureWarning"),
    ("grad of fc1.weight: 2.0\n", _result("grad of fc2.weight: 2.0\n"),
     "torch 2.0–2.7 print `fc2` instead of `fc1` in line 1", "torch 2.0–2.7 第 1 行输出 `fc2`，而不是 `fc1`"),
    ("a b c\n", _result("a b c \n"), "torch 2.0–2.7 print a different line 1", "torch 2.0–2.7 第 1 行的输出不同"),
]


@pytest.mark.parametrize("shown, result, english, chinese", CASES, ids=[case[2][14:50] for case in CASES])
def test_the_title_says_what_differs(shown, result, english, chinese):
    assert _said(shown, result) == english
    assert _said(shown, result, "zh") == chinese


def test_one_release_takes_the_singular_and_a_long_error_is_cut():
    said = sentence("2.10", 1, [Phrase.of("warning_worded")], "en")
    assert said == "torch 2.10 words the warning differently"
    assert sentence("2.10", 1, [Phrase.of("missing_line", lines="3")], "en") == "torch 2.10 does not print line 3"
    long = "RuntimeError: " + "word " * 40
    assert first_line(long).endswith(" …") and len(first_line(long)) <= 92
    assert first_line("InternalTorchDynamoError: ('EOF in statement\\n\\nfrom user code:") == \
        "InternalTorchDynamoError: ('EOF in statement"


def test_nothing_precise_says_something_else():
    assert phrases("a\n", _result("a\n")) == [Phrase.of("something_else")]  # e.g. only a trailing change


# ------------------------------------------------------------------ an earlier block's difference as the cause
CODES = ["caught = []\nx = 1\n", "print(caught[0])\n", "y = undefined_here\n", "z = torch.ones(1).nbytes\n",
         "caught = [1]\nprint(caught[0])\n"]


def test_an_error_after_an_earlier_error_follows_from_it():
    results = [_result("", "raises"), _result("", "not run"), _result("NameError: name 'w' is not defined", "raises")]
    assert cause(2, CODES[:3], results) == Cause(0, certain=True)


def test_a_name_error_after_an_earlier_difference_follows_from_it():
    results = [_result("other\n"), BlockResult("same"), _result("NameError: name 'undefined_here' is not defined",
                                                                "raises")]
    assert cause(2, CODES[:3], results) == Cause(0, certain=True)


def test_an_index_error_on_a_name_an_earlier_difference_set_may_follow_from_it():
    results = [_result("other\n"), _result("IndexError: list index out of range", "raises")]
    assert cause(1, CODES[:2], results) == Cause(0, certain=False)
    # the block binds the name itself: its own list, not the earlier block's
    assert cause(1, [CODES[0], CODES[4]], results) is None
    # the earlier block only wrote to stderr: it printed what the page shows, nothing it set differs
    assert cause(1, CODES[:2], [_result("", stderr="a warning"), results[1]]) is None


def test_torch_s_own_errors_and_printed_differences_are_not_consequences():
    results = [_result("other\n"), _result("other\n"), BlockResult("same"),
               _result("AttributeError: 'Tensor' object has no attribute 'nbytes'", "raises")]
    assert cause(3, CODES[:4], results) is None  # torch's own error, whatever came before
    assert cause(1, CODES[:2], results) is None  # printing something else is what the code does there
    assert cause(1, CODES[:2], [BlockResult("same"), _result("IndexError: x", "raises")]) is None  # nothing before


def test_a_possible_cause_is_said_as_one():
    said = sentence("2.0–2.7", 2, [Phrase.of("raises", error="`IndexError: list index out of range`")], "en",
                    Cause(0, certain=False), "[the block above](#torch-note-1)")
    assert said == ("torch 2.0–2.7 raise `IndexError: list index out of range`; this may follow from the difference "
                    "at [the block above](#torch-note-1)")
    said = sentence("2.0–2.7", 2, [Phrase.of("raises", error="`IndexError: x`")], "zh", Cause(0, certain=False),
                    "[上一个代码块](#torch-note-1)")
    assert said == "torch 2.0–2.7 报错 `IndexError: x`；这可能是由[上一个代码块](#torch-note-1)处的差异引起的"


def test_a_note_names_the_block_its_error_follows_from(tmp_path):
    blocks = _blocks()
    entries = [_same(block) for block in blocks]
    entries[2] = {"line": blocks[2].line, "error": "AttributeError: 'Tensor' object has no attribute 'x'", "stdout": ""}
    entries[3] = {"line": blocks[3].line, "error": "NameError: name 'y' is not defined", "stdout": ""}
    _release(tmp_path, "2.6.0", entries)
    _release(tmp_path, "2.7.1", entries)
    notes = block_notes(PAGE, "en", data=tmp_path)
    assert sorted(notes) == [2, 3]
    assert notes[2].title == "torch 2.6–2.7 raise `AttributeError: 'Tensor' object has no attribute 'x'`"
    assert notes[3].title == ("torch 2.6–2.7 fail with `NameError: name 'y' is not defined`, which follows from the "
                              f"difference at [the block above](#{note_anchor(2)})")
    assert block_notes(PAGE, "zh", link=None, data=tmp_path)[3].title == \
        "torch 2.6–2.7 报错 `NameError: name 'y' is not defined`，这是由上一个代码块处的差异引起的"
    assert "NameError" in "\n".join(notes[3].body), "the note still shows the error, behind its title"


def test_the_code_runs_on_more_releases_than_it_prints_the_same(tmp_path):
    blocks = _blocks()
    same = [_same(block) for block in blocks]
    worded = list(same)
    worded[0] = {"line": blocks[0].line, "stdout": blocks[0].shown + "more\n"}
    raised = list(same)
    raised[0] = {"line": blocks[0].line, "error": "AttributeError: no", "stdout": ""}
    for release, entries in {"2.10.0": raised, "2.11.0": worded, "2.12.1": same, "2.13.0": same}.items():
        _release(tmp_path, release, entries)
    results = page_results(PAGE, tmp_path)
    assert running_range(results) == ("2.11", "2.13") and unchanged_range(results) == ("2.12", "2.13")
