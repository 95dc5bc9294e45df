"""The code blocks of a Markdown page, in pytest-codeblocks' markup.

* a fence whose info string is exactly ``python`` is executed;
* ``<!--pytest-codeblocks:expected-output-->`` before a fence makes that fence
  the output of the code block above it;
* ``<!--pagerun:expected-warnings-->`` before a fence makes that fence the
  warnings of the code block above it (after its output, if it has one): what a
  reader's console shows on stderr, one ``Category: message`` line each. It is
  this suite's own marker (pytest-codeblocks has none for warnings and ignores
  the comment; the fence after it is an ordinary ``text`` fence to it);
* ``<!--pytest.mark.skip(reason="...")-->`` before a fence declares that it is
  not run, and why.

Hand-written (a line scanner and a binder, below), because the libraries that
read fences give the suite different code than the site shows. Measured on all
56 pages (2026-11, the architecture review): markdown-it-py with
mdit-py-plugins' admonitions returned different blocks on 20 of them. Fences
inside admonitions and content tabs came out one line early; code inside an
admonition was cut at its first double blank line (turning-gradients-off.md,
intermediate/hooks.md, saved-tensors-hooks.md); one block of
saved-tensors-hooks.md was lost, in both languages. Sybil's fence lexer found
the same fences as this scanner, but would make Sybil a dependency of the site
build, and binding the markers below stays hand-written either way. The
scanner also reports the fences pytest-codeblocks passes over without a word
(``~~~`` fences, ``py``, ``pycon``, ``python title=...``), so that a test can
refuse them instead of letting them go unexecuted.

An executed block may include a file with a pymdownx.snippets line,
``--8<-- "snippets/capture_grads.py"``. The site shows the file's text in its
place, so the block runs with it expanded by pymdownx.snippets itself, from
the same base path as mkdocs.yml (the repository root). ``Block.source``
keeps the raw include line (it is what pytest-codeblocks and the translation
check see); ``Block.code`` is what runs. A missing file is a PageFormatError.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from markdown import Markdown
from pymdownx.snippets import SnippetExtension, SnippetMissingError, SnippetPreprocessor

from .blocks import Block, Output, PageFormatError
from .layout import ROOT

_CODEBLOCKS_MARKER = re.compile(r"<!--[-\s]*pytest-codeblocks:(.*?)[-\s]*-->$")
_WARNINGS_MARKER = re.compile(r"<!--[-\s]*pagerun:expected-warnings[-\s]*-->$")
_PYTEST_MARK = re.compile(r"<!--[-\s]*pytest\.mark\.(.*?)[-\s]*-->$")
_SKIP_REASON = re.compile(r"""skip\(\s*reason\s*=\s*(["'])(.+?)\1\s*\)$""")
_FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<chars>`{3,}|~{3,})(?P<info>.*)$")
# mkdocs.yml's pymdownx.snippets base_path: includes are relative to the repository root.
SNIPPETS_BASE = ROOT


def _expand_snippets(block: Block, base: Path) -> None:
    """Set block.code: the source as the site shows it, includes expanded by pymdownx.snippets."""
    lines = block.source.splitlines()
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
    whole_file = False
    for offset, match in includes:
        where = f"{block.path}:{block.line + 1 + offset}"
        if not match.group("inline_marker"):
            raise PageFormatError(
                where, "an executed block includes files only with one "
                '--8<-- "path/to/file.py" line per file (no block-style --8<-- markers)'
            )
        target = preprocessor.parse_snippet_target(match.group("snippet")[1:-1].strip())
        snippet = target and preprocessor.get_snippet_path(target["path"])
        if not snippet:
            wanted = target["path"] if target else match.group("snippet")
            raise PageFormatError(
                where, f"snippet file {wanted} not found (pymdownx.snippets "
                f"resolves includes from {base}; the site build would fail too)"
            )
        found.append(snippet)
        whole_file = not (target["start"] or target["section"])
    try:
        expanded = preprocessor.run(lines)
    except SnippetMissingError as error:
        where = f"{block.path}:{block.line + 1 + includes[0][0]}"
        raise PageFormatError(where, f"snippet include failed: {error}") from None
    block.code = "".join(line + "\n" for line in expanded)
    if len(lines) == 1 and whole_file:
        file = Path(found[0])
        block.included_file = str(file.relative_to(Path.cwd()) if file.is_relative_to(Path.cwd()) else file)


@dataclass(frozen=True)
class _Marker:
    line: int
    # "codeblocks" (<!--pytest-codeblocks:KEYWORD-->), "warnings" (<!--pagerun:expected-warnings-->)
    # or "mark" (<!--pytest.mark.TEXT-->)
    kind: str
    text: str
    raw: str


@dataclass(frozen=True)
class _Fence:
    line: int  # the opening fence
    end: int  # the closing fence
    indent: int
    chars: str
    info: str
    text: str  # the body, de-indented by the opening fence's indent


def _scan(path: Path, lines: list[str]) -> Iterator[_Marker | _Fence]:
    """The page's markers and fences, in order; the lines inside a fence are never read as markers."""
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if marker := _CODEBLOCKS_MARKER.match(stripped):
            yield _Marker(i + 1, "codeblocks", marker.group(1).strip(), stripped)
        elif _WARNINGS_MARKER.match(stripped):
            yield _Marker(i + 1, "warnings", "", stripped)
        elif mark := _PYTEST_MARK.match(stripped):
            yield _Marker(i + 1, "mark", mark.group(1), stripped)
        elif opening := _FENCE_OPEN.match(lines[i]):
            indent, chars = len(opening.group("indent")), opening.group("chars")
            body: list[str] = []
            j = i + 1
            while True:
                if j >= len(lines):
                    raise PageFormatError(f"{path}:{i + 1}", f"fence {chars!r} is never closed")
                candidate = lines[j].lstrip(" ")
                if candidate.startswith(chars) and candidate.strip(chars[0]) == "":
                    break
                body.append(lines[j][min(indent, len(lines[j]) - len(candidate)):])
                j += 1
            yield _Fence(i + 1, j + 1, indent, chars, opening.group("info").strip(), "".join(f"{b}\n" for b in body))
            i = j
        i += 1


def parse_page(path: Path, snippets_base: Path = SNIPPETS_BASE) -> list[Block]:
    """Every fenced block of the page except outputs, which are attached to their code block.

    The markers bind to the fence after them: an expected-output marker makes
    it the output of the code block before it, a skip marker declares it not
    run. Executed blocks get their snippet includes expanded, from ``snippets_base``.
    """
    path = Path(path)
    blocks: list[Block] = []
    pending_output: int | None = None  # the line of an expected-output marker waiting for its fence
    pending_warnings: int | None = None  # likewise, an expected-warnings marker
    pending_skip: tuple[int, str] | None = None  # a skip marker's line and reason, likewise
    last_code: Block | None = None
    for item in _scan(path, path.read_text(encoding="utf-8").splitlines()):
        where = f"{path}:{item.line}"
        if isinstance(item, _Marker) and item.kind == "codeblocks":
            if item.text != "expected-output":
                raise PageFormatError(
                    where, f"unsupported marker 'pytest-codeblocks:{item.text}'; pages use only "
                    "'expected-output' (the blocks of a page already run as one session, so 'cont' is not "
                    "needed, and skips are declared with <!--pytest.mark.skip(reason=\"...\")-->)")
            if last_code is None or last_code.output is not None or last_code.warnings is not None:
                raise PageFormatError(
                    where, "expected-output marker without a code block above it that still lacks an output")
            pending_output = item.line
        elif isinstance(item, _Marker) and item.kind == "warnings":
            if last_code is None or last_code.warnings is not None or not last_code.executed:
                raise PageFormatError(
                    where, "expected-warnings marker without an executed code block above it that still lacks "
                    "its warnings (the warnings fence comes after the block and its output fence)")
            pending_warnings = item.line
        elif isinstance(item, _Marker):
            reason = _SKIP_REASON.match(item.text)
            if not reason or not reason.group(2).strip():
                raise PageFormatError(
                    where, f'expected <!--pytest.mark.skip(reason="why this block is not run")-->, got {item.raw!r}')
            pending_skip = (item.line, reason.group(2).strip())
        elif pending_output is not None:
            last_code.output = Output(text=item.text, line=item.line, end=item.end, marker_line=pending_output,
                                      info=item.info)
            pending_output = None
        elif pending_warnings is not None:
            last_code.warnings = Output(text=item.text, line=item.line, end=item.end, marker_line=pending_warnings,
                                        info=item.info)
            pending_warnings = None
        else:
            block = Block(path=path, source=item.text, line=item.line, end=item.end, indent=item.indent,
                          fence=item.chars, info=item.info)
            if pending_skip is not None:
                block.marker_line, block.skip_reason = pending_skip
                pending_skip = None
            if block.executed:
                _expand_snippets(block, snippets_base)
            blocks.append(block)
            last_code = block
    if pending_output is not None:
        raise PageFormatError(f"{path}:{pending_output}", "expected-output marker with no fence after it")
    if pending_warnings is not None:
        raise PageFormatError(f"{path}:{pending_warnings}", "expected-warnings marker with no fence after it")
    if pending_skip is not None:
        raise PageFormatError(f"{path}:{pending_skip[0]}", "skip marker with no fence after it")
    return blocks


def prose_lines(path: Path) -> list[str]:
    """The lines of a page outside its fences (a notebook's markdown cells), as written."""
    path = Path(path)
    if path.suffix == ".ipynb":
        from .notebook import read

        return [line for cell in read(path).cells if cell.cell_type == "markdown"
                for line in "".join(cell.source).splitlines()]
    lines = path.read_text(encoding="utf-8").splitlines()
    inside = {n for item in _scan(path, lines) if isinstance(item, _Fence) for n in range(item.line, item.end + 1)}
    return [line for number, line in enumerate(lines, start=1) if number not in inside]
