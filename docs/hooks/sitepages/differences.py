"""What a block does differently on another torch release, said in one line: the summary of a version note.

``phrases`` compares what a release printed, warned, wrote to stderr or raised
(a ``BlockResult``, log lines already left out) with what the page shows, and
names the difference: a warning missing, added or worded differently; the
lines of the output that differ (a number, a message's wording, an error the
code caught); extra or missing lines; the exception and its first line. Only
where none of these applies does it say "prints something else".

``cause`` decides whether a block's exception on a release follows from an
earlier block's difference on that release: the page's own code failing, not
torch behaving differently.

* certain: the block raises and an earlier block raised on that release (the
  session went on after an error), or it raises ``NameError`` or
  ``UnboundLocalError`` while an earlier block differs there: torch raises
  neither for a missing API; a name the page's code should have defined is
  missing;
* possible: it raises an error of the page's own data handling
  (``PAGE_ERRORS``: ``IndexError``, ``KeyError``, ...) and an earlier block that
  printed something else or raised on that release binds or changes a name
  this block reads without binding it itself (by ``ast``), e.g. a list of
  caught warnings that is empty on old torch, indexed later. State kept
  elsewhere (torch's global settings, the random generator) is not followed.

A block that only prints something else is described as it is: that is what
the page's code does on the release, whatever the reason; marking every later
difference after a first one as a possible consequence would mark reworded
messages of independent blocks too. Within one block, lines that already
differ before it raises are named first ("prints 0 instead of 2 in line 2
and then raises IndexError"), so the reader sees where the error comes from.

``sentence`` writes the phrases in a language, for a span of releases, from the
strings of docs/data/interface.yml (group ``version_differences``).
"""

from __future__ import annotations

import ast
import difflib
import functools
import re
from dataclasses import dataclass

from .blocks import WARNINGS_HEADING
from .strings import strings

# A number as torch and Python print it: 2, -0.5, 1.2e-08, 3. (not the digits of a name: fc1, Backward0)
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?")
# An exception or warning class named in a line ("RuntimeError: ...", "UserWarning ...").
_NAMED = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Warning))\b")
# The first line of a warning in a block's warnings: "UserWarning: message".
_WARNING_LINE = re.compile(r"(?m)^([A-Z]\w*Warning): ")
# A C++ log line (glog): "W torch/file.py:12] message".
_LOG_LINE = re.compile(r"(?m)^[IWEF] \S+:\d+\] ")
ERROR_LENGTH = 90  # characters of an exception's message quoted in a summary
QUOTE_LENGTH = 30  # characters of a changed part of a line quoted in a summary ("prints `X` instead of `Y`")
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
# Exceptions that, after an earlier block's difference, mean the page's own code lost a name it defined.
MISSING_NAME = ("NameError", "UnboundLocalError")
# Exceptions of the page's own handling of data (an empty list indexed, a missing key), which an earlier
# difference may cause; torch's own errors (AttributeError, TypeError, RuntimeError ...) are not among them.
PAGE_ERRORS = ("IndexError", "KeyError", "StopIteration", "AssertionError", "ZeroDivisionError")


@dataclass(frozen=True)
class Phrase:
    """One thing a release does differently, as a key of the strings and the values it fills in."""

    key: str
    values: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, key: str, **values: str) -> Phrase:
        return cls(key, tuple(values.items()))


def split_shown(text: str) -> tuple[str, str]:
    """A block's whole result (``blocks.shown``) as its printed output and its warnings."""
    printed, _, warned = text.partition(WARNINGS_HEADING)
    return printed, warned


def code_span(text: str) -> str:
    ticks = "``" if "`" in text else "`"
    return f"{ticks}{text}{ticks}" if ticks == "`" else f"`` {text} ``"


def first_line(error: str, length: int = ERROR_LENGTH) -> str:
    """An exception's first line, cut at a word before ``length`` characters."""
    line = error.strip().split("\n")[0].split("\\n")[0]
    if len(line) <= length:
        return line
    cut = line[:length].rsplit(" ", 1)[0]
    return cut.rstrip(" ,.:;") + " …"


def _line_numbers(numbers: list[int], comma: str) -> str:
    """[2, 3, 4, 7] -> "2–4, 7"."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return comma.join(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)


def _changed_part(shown: str, printed: str) -> tuple[str, str] | None:
    """The one stretch of a line that differs (from the first changed word to the last), if short enough to
    quote and made of more than punctuation on both sides."""
    old, new = _TOKEN.findall(shown), _TOKEN.findall(printed)
    changes = [op for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not changes:
        return None
    parts = ("".join(old[changes[0][1]:changes[-1][2]]).strip(), "".join(new[changes[0][3]:changes[-1][4]]).strip())
    if all(part and len(part) <= QUOTE_LENGTH and re.search(r"\w", part) for part in parts):
        return parts
    return None


def _changed_line(shown: str, printed: str) -> tuple[str, dict[str, str]]:
    """How one printed line differs from the line the page shows: a key and its values."""
    if _NUMBER.sub("#", shown) == _NUMBER.sub("#", printed):
        old, new = _NUMBER.findall(shown), _NUMBER.findall(printed)
        pairs = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
        if len(pairs) == 1:
            return "instead", {"new": pairs[0][1], "old": pairs[0][0]}
        return "numbers", {}
    named_shown, named_printed = _NAMED.findall(shown), _NAMED.findall(printed)
    part = _changed_part(shown, printed)
    if named_shown and named_printed and named_shown[0] == named_printed[0]:
        if part:
            return "worded_quoted", {"name": named_shown[0], "new": code_span(part[1]), "old": code_span(part[0])}
        return "worded", {"name": named_shown[0]}
    if named_printed and not named_shown:
        return "reports", {"name": named_printed[0]}
    if part:
        return "instead", {"new": code_span(part[1]), "old": code_span(part[0])}
    return "line", {}


def output_phrases(shown: str, printed: str, reached_only: bool = False) -> list[Phrase]:
    """How a release's printed output differs from the page's, by line. ``reached_only``: the block raised,
    so only the lines it printed before are compared with the page's first lines."""
    page, release = shown.splitlines(), printed.splitlines()
    if reached_only:
        page = page[: len(release)]
    if page == release:
        return []
    if not release:
        return [Phrase.of("prints_nothing")]
    if not page:
        return [Phrase.of("prints_unshown")]
    changes = [op for op in difflib.SequenceMatcher(None, page, release, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    first = changes[0][1] + 1
    if all(tag == "replace" and i2 - i1 == j2 - j1 for tag, i1, i2, j1, j2 in changes):
        lines = [(i + 1, page[i], release[j1 + i - i1]) for _, i1, i2, j1, _ in changes for i in range(i1, i2)]
        kinds = [_changed_line(old, new) for _, old, new in lines]
        numbers = [number for number, _, _ in lines]
        if len(lines) == 1:
            key, values = kinds[0]
            return [Phrase.of(f"{key}_in_line", line=str(numbers[0]), **values)]
        if all(_NUMBER.sub("#", old) == _NUMBER.sub("#", new) for _, old, new in lines):
            return [Phrase.of("numbers_in_lines", lines=numbers_text(numbers))]
        names = {values.get("name") for _, values in kinds}
        if {key for key, _ in kinds} <= {"worded", "worded_quoted"} and len(names) == 1:
            return [Phrase.of("worded_in_lines", lines=numbers_text(numbers), name=kinds[0][1]["name"])]
        return [Phrase.of("lines", lines=numbers_text(numbers))]
    if all(tag == "insert" for tag, *_ in changes):
        count = sum(j2 - j1 for _, _, _, j1, j2 in changes)
        return [Phrase.of("extra_line" if count == 1 else "extra_lines", count=str(count), line=str(changes[0][1]))]
    if all(tag == "delete" for tag, *_ in changes):
        numbers = [i + 1 for _, i1, i2, _, _ in changes for i in range(i1, i2)]
        return [Phrase.of("missing_line" if len(numbers) == 1 else "missing_lines", lines=numbers_text(numbers))]
    return [Phrase.of("from_line", line=str(first))]


def numbers_text(numbers: list[int]) -> str:
    """Line numbers as the phrases fill them in; the comma is the same in every language's digits."""
    return _line_numbers(numbers, "\x00")  # replaced by the language's comma in ``sentence``


def warning_phrases(shown: str, warned: str, raised: bool = False) -> list[Phrase]:
    """How a release's warnings differ from those the page shows (one ``Category: message`` each). After an
    error only warnings the page does not show count: the block may have stopped before the others."""
    page, release = _WARNING_LINE.findall(shown), _WARNING_LINE.findall(warned)
    if shown.strip() == warned.strip():
        return []
    if raised:
        extra = [category for category in release if category not in page]
        return [Phrase.of("extra_warning", category=extra[0])] if extra else []
    if page and not release:
        return [Phrase.of("no_warning")]
    if release and not page:
        return [Phrase.of("extra_warning", category=release[0])]
    if page == release:
        return [Phrase.of("warning_worded" if len(page) == 1 else "warnings_worded")]
    if len(page) != len(release) and set(page) == set(release):
        return [Phrase.of("warning_count", new=str(len(release)), old=str(len(page)))]
    if len(page) == len(release) == 1:
        return [Phrase.of("other_warning", new=release[0], old=page[0])]
    return [Phrase.of("other_warnings")]


def stderr_phrases(stderr: str) -> list[Phrase]:
    if not stderr.strip():
        return []
    found = _WARNING_LINE.findall(stderr) or re.findall(r": ([A-Z]\w*Warning): ", stderr)
    if found:
        return [Phrase.of("stderr_warning", category=found[0])]
    if _LOG_LINE.search(stderr):
        return [Phrase.of("stderr_log")]
    return [Phrase.of("stderr")]


def phrases(shown: str, result) -> list[Phrase]:
    """What a release did differently from what the page shows, as phrases (a generic one at least)."""
    page_printed, page_warned = split_shown(shown)
    if result.state == "raises":
        printed, warned = split_shown(result.printed)
        found = [*warning_phrases(page_warned, warned, raised=True),
                 *output_phrases(page_printed, printed, reached_only=True)]
        found.append(Phrase.of("then_raises" if found else "raises", error=code_span(first_line(result.text))))
    else:
        printed, warned = split_shown(result.text)
        found = [*warning_phrases(page_warned, warned), *output_phrases(page_printed, printed)]
    found += stderr_phrases(result.stderr)
    return found or [Phrase.of("something_else")]


# ------------------------------------------------------------------ an earlier block's difference as the cause
@functools.lru_cache(maxsize=4096)
def _names(code: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The names a block's code binds or changes (assigned, defined, or the object of an assignment to an
    attribute or item, or of a method call), those it reads, and the modules it imports."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return frozenset(), frozenset(), frozenset()
    changed, read, modules = set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (changed if isinstance(node.ctx, ast.Store | ast.Del) else read).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            changed.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                changed.add(name)
                if isinstance(node, ast.Import):
                    modules.add(name)
        elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            base = node.value
            while isinstance(base, ast.Attribute | ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                changed.add(base.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name):
            changed.add(node.func.value.id)  # x.append(...), model.train(): may change x
    return frozenset(changed), frozenset(read), frozenset(modules)


@dataclass(frozen=True)
class Cause:
    """An earlier block whose difference on the same release this block's difference follows from."""

    block: int  # its index among the page's executed blocks
    certain: bool


def cause(index: int, codes: list[str], results: list) -> Cause | None:
    """Whether block ``index``'s exception on a release follows from an earlier block's difference there
    (module docstring). ``codes``: the code of every executed block; ``results``: their BlockResults there."""
    if results[index].state != "raises":
        return None
    earlier = [i for i in range(index) if results[i].state in ("differs", "raises")]
    raised = [i for i in earlier if results[i].state == "raises"]
    error = results[index].text.split(":")[0].strip()
    if raised:
        return Cause(raised[-1], certain=True)
    if earlier and error in MISSING_NAME:
        return Cause(earlier[-1], certain=True)
    if error not in PAGE_ERRORS:
        return None
    modules = frozenset().union(*(_names(code)[2] for code in codes))
    changes, reads, _ = _names(codes[index])
    own = reads - changes - modules
    for i in reversed(earlier):
        printed_differently = results[i].state == "raises" or results[i].text != ""
        if printed_differently and (_names(codes[i])[0] - modules) & own:
            return Cause(i, certain=False)
    return None


# ------------------------------------------------------------------ in words
def sentence(versions: str, count: int, found: list[Phrase], language: str, follows: Cause | None = None,
             block: str = "") -> str:
    """One line: "torch 2.0–2.7 give no warning here and print 0 instead of 2 in line 2".

    ``count``: how many releases ``versions`` names (English says "prints" of one, "print" of several).
    ``follows``: the earlier block the difference follows from, named by ``block`` (Markdown: words or a
    link); a certain cause replaces the phrases by the error the page's code fails with.
    """
    words = strings("version_differences", language)
    inflect = {"s": "s" if count == 1 else "", "es": "es" if count == 1 else ""}
    if follows is not None and follows.certain:
        error = next((dict(phrase.values)["error"] for phrase in found if phrase.key == "raises"), "")
        found = [Phrase.of("fails", error=error)]
    parts = []
    for phrase in found:
        values = {key: value.replace("\x00", words["line_comma"]) for key, value in phrase.values}
        parts.append(words[phrase.key].format(**inflect, **values))
    text = words["subject"].format(versions=versions) + _joined(parts, words)
    if follows is not None:
        text += words["follows" if follows.certain else "may_follow"].format(block=block, **inflect)
    return text


def _joined(parts: list[str], words: dict[str, str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return words["comma"].join(parts[:-1]) + words["and"] + parts[-1]
