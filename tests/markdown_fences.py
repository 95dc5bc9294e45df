"""Find every fenced block of a docs page and what the suite does with it.

Pages use pytest-codeblocks' markup:

* a fence whose info string is exactly ``python`` is executed;
* ``<!--pytest-codeblocks:expected-output-->`` before a fence makes that fence
  the output of the code block above it;
* ``<!--pytest.mark.skip(reason="...")-->`` before a fence declares that it is
  not run, and why.

This parser also sees the fences pytest-codeblocks passes over without a word
(``~~~`` fences, ``py``, ``pycon``, ``python title=...``), so that a test can
refuse them instead of letting them go unexecuted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import CodeType

EXECUTED_INFO = "python"
_CODEBLOCKS_MARKER = re.compile(r"<!--[-\s]*pytest-codeblocks:(.*?)[-\s]*-->$")
_PYTEST_MARK = re.compile(r"<!--[-\s]*pytest\.mark\.(.*?)[-\s]*-->$")
_SKIP_REASON = re.compile(r"""skip\(\s*reason\s*=\s*(["'])(.+?)\1\s*\)$""")
_FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<chars>`{3,}|~{3,})(?P<info>.*)$")


class PageFormatError(ValueError):
    """A page uses the markup in a way the suite cannot honour."""

    def __init__(self, path: Path, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")


@dataclass
class Fence:
    path: Path
    start: int  # line of the opening fence, 1-based
    end: int  # line of the closing fence
    indent: int
    chars: str  # the fence itself, e.g. ``` or ~~~~
    info: str
    body: str  # content with the fence's indentation removed
    is_output: bool = False
    skip_reason: str | None = None
    marker_line: int | None = None  # line of the marker comment before it
    output: Fence | None = None  # for a code fence: the output shown after it

    @property
    def executed(self) -> bool:
        """True for the blocks pytest-codeblocks would run as Python."""
        return (
            not self.is_output
            and self.skip_reason is None
            and self.chars.startswith("```")
            and self.info == EXECUTED_INFO
        )

    @property
    def where(self) -> str:
        return f"{self.path}:{self.start}"

    def compiled(self) -> CodeType:
        """The block's code; leading newlines make tracebacks report the page's own lines."""
        return compile("\n" * self.start + self.body, str(self.path), "exec")


def parse_page(path: Path) -> list[Fence]:
    """Return every fence of the page, outputs attached to their code block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    fences: list[Fence] = []
    pending_output_marker: int | None = None
    pending_skip: tuple[int, str] | None = None
    last_code: Fence | None = None
    i = 0
    while i < len(lines):
        line_no = i + 1
        stripped = lines[i].strip()

        marker = _CODEBLOCKS_MARKER.match(stripped)
        if marker:
            keyword = marker.group(1).strip()
            if keyword != "expected-output":
                raise PageFormatError(
                    path,
                    line_no,
                    f"unsupported marker 'pytest-codeblocks:{keyword}'; pages use only "
                    "'expected-output' (the blocks of a page already run as one session, "
                    "so 'cont' is not needed, and skips are declared with "
                    "<!--pytest.mark.skip(reason=\"...\")-->)",
                )
            if last_code is None or last_code.output is not None:
                raise PageFormatError(
                    path, line_no, "expected-output marker without a code block above it "
                    "that still lacks an output"
                )
            pending_output_marker = line_no
            i += 1
            continue

        mark = _PYTEST_MARK.match(stripped)
        if mark:
            reason = _SKIP_REASON.match(mark.group(1))
            if not reason or not reason.group(2).strip():
                raise PageFormatError(
                    path,
                    line_no,
                    f"expected <!--pytest.mark.skip(reason=\"why this block is not run\")-->, "
                    f"got {stripped!r}",
                )
            pending_skip = (line_no, reason.group(2).strip())
            i += 1
            continue

        opening = _FENCE_OPEN.match(lines[i])
        if not opening:
            i += 1
            continue

        indent = len(opening.group("indent"))
        chars = opening.group("chars")
        body: list[str] = []
        j = i + 1
        while True:
            if j >= len(lines):
                raise PageFormatError(path, line_no, f"fence {chars!r} is never closed")
            candidate = lines[j].lstrip(" ")
            if candidate.startswith(chars) and candidate.strip(chars[0]) == "":
                break
            body.append(lines[j][min(indent, len(lines[j]) - len(candidate)):])
            j += 1

        fence = Fence(
            path=path,
            start=line_no,
            end=j + 1,
            indent=indent,
            chars=chars,
            info=opening.group("info").strip(),
            body="".join(text + "\n" for text in body),
        )
        if pending_output_marker is not None:
            fence.is_output = True
            fence.marker_line = pending_output_marker
            assert last_code is not None
            last_code.output = fence
            pending_output_marker = None
        else:
            if pending_skip is not None:
                fence.marker_line, fence.skip_reason = pending_skip
                pending_skip = None
            last_code = fence
        fences.append(fence)
        i = j + 1

    if pending_output_marker is not None:
        raise PageFormatError(path, pending_output_marker, "expected-output marker with no fence after it")
    if pending_skip is not None:
        raise PageFormatError(path, pending_skip[0], "skip marker with no fence after it")
    return fences


def silently_skipped(fences: list[Fence]) -> list[Fence]:
    """Fences that are neither run, nor an output, nor declared not to run."""
    return [f for f in fences if not (f.executed or f.is_output or f.skip_reason)]
