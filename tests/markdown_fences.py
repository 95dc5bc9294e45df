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

An executed block may include a file with a pymdownx.snippets line,
``--8<-- "snippets/capture_grads.py"``. The site shows the file's text in its
place, so the block runs with it expanded by pymdownx.snippets itself, from
the same base path as mkdocs.yml (the repository root). ``Fence.body`` keeps
the raw include line (it is what pytest-codeblocks and the translation check
see); ``Fence.code`` is what runs. A missing file is a PageFormatError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import CodeType

from markdown import Markdown
from pymdownx.snippets import SnippetExtension, SnippetMissingError, SnippetPreprocessor

EXECUTED_INFO = "python"
_CODEBLOCKS_MARKER = re.compile(r"<!--[-\s]*pytest-codeblocks:(.*?)[-\s]*-->$")
_PYTEST_MARK = re.compile(r"<!--[-\s]*pytest\.mark\.(.*?)[-\s]*-->$")
_SKIP_REASON = re.compile(r"""skip\(\s*reason\s*=\s*(["'])(.+?)\1\s*\)$""")
_FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<chars>`{3,}|~{3,})(?P<info>.*)$")
# mkdocs.yml's pymdownx.snippets base_path: includes are relative to the repository root.
SNIPPETS_BASE = Path(__file__).resolve().parent.parent


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
    code: str = ""  # what runs: the body with its snippet includes expanded
    included_file: str | None = None  # set when the body is one include line and nothing else

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
        """The block's code; leading newlines make tracebacks report the page's own lines.

        A block that only includes a file runs under that file's name, so its
        tracebacks point at the file's own lines. (In a block that mixes an
        include with other code, lines after the include are shifted.)
        """
        if self.included_file is not None:
            return compile(self.code, self.included_file, "exec")
        return compile("\n" * self.start + self.code, str(self.path), "exec")


def _expand_snippets(fence: Fence, base: Path) -> None:
    """Fill fence.code: the body as the site shows it, includes expanded by pymdownx.snippets."""
    fence.code = fence.body
    lines = fence.body.splitlines()
    includes = [
        (offset, match)
        for offset, match in enumerate(map(SnippetPreprocessor.RE_ALL_SNIPPETS.match, lines))
        if match and not match.group("escape")
    ]
    if not includes:
        return
    markdown = Markdown(extensions=[SnippetExtension(base_path=[str(base)], check_paths=True)])
    preprocessor = markdown.preprocessors["snippet"]
    found: list[str] = []
    for offset, match in includes:
        line_no = fence.start + 1 + offset
        if not match.group("inline_marker"):
            raise PageFormatError(
                fence.path, line_no, "an executed block includes files only with one "
                '--8<-- "path/to/file.py" line per file (no block-style --8<-- markers)'
            )
        target = preprocessor.parse_snippet_target(match.group("snippet")[1:-1].strip())
        snippet = target and preprocessor.get_snippet_path(target["path"])
        if not snippet:
            wanted = target["path"] if target else match.group("snippet")
            raise PageFormatError(
                fence.path, line_no, f"snippet file {wanted} not found (pymdownx.snippets "
                f"resolves includes from {base}; the site build would fail too)"
            )
        found.append(snippet)
        whole_file = not (target["start"] or target["section"])
    try:
        expanded = preprocessor.run(lines)
    except SnippetMissingError as error:
        raise PageFormatError(fence.path, fence.start + 1 + includes[0][0], f"snippet include failed: {error}")
    fence.code = "".join(line + "\n" for line in expanded)
    if len(lines) == 1 and whole_file:
        file = Path(found[0])
        fence.included_file = str(file.relative_to(Path.cwd()) if file.is_relative_to(Path.cwd()) else file)


def parse_page(path: Path, snippets_base: Path = SNIPPETS_BASE) -> list[Fence]:
    """Return every fence of the page, outputs attached to their code block.

    Executed blocks get their snippet includes expanded, from ``snippets_base``.
    """
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
        fence.code = fence.body
        if fence.executed:
            _expand_snippets(fence, snippets_base)
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
