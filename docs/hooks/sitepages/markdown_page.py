"""The code blocks of a Markdown page, in pytest-codeblocks' markup.

* a fence whose info string is exactly ``python`` is executed;
* ``<!--pytest-codeblocks:expected-output-->`` before a fence makes that fence
  the output of the code block above it;
* ``<!--pytest.mark.skip(reason="...")-->`` before a fence declares that it is
  not run, and why.

Hand-written, because no Markdown library reports what the suite needs: the
line of each fence, the HTML comment just before it, and the fences that
pytest-codeblocks passes over without a word (``~~~`` fences, ``py``,
``pycon``, ``python title=...``), so that a test can refuse them instead of
letting them go unexecuted. (markdown-it-py tokenises fences, but drops the
comments' positions relative to them and does not know admonitions or
content tabs, whose indented fences it reads as code blocks.)

An executed block may include a file with a pymdownx.snippets line,
``--8<-- "snippets/capture_grads.py"``. The site shows the file's text in its
place, so the block runs with it expanded by pymdownx.snippets itself, from
the same base path as mkdocs.yml (the repository root). ``Block.source``
keeps the raw include line (it is what pytest-codeblocks and the translation
check see); ``Block.code`` is what runs. A missing file is a PageFormatError.
"""

from __future__ import annotations

import re
from pathlib import Path

from markdown import Markdown
from pymdownx.snippets import SnippetExtension, SnippetMissingError, SnippetPreprocessor

from .blocks import Block, Output, PageFormatError
from .layout import ROOT

_CODEBLOCKS_MARKER = re.compile(r"<!--[-\s]*pytest-codeblocks:(.*?)[-\s]*-->$")
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


def parse_page(path: Path, snippets_base: Path = SNIPPETS_BASE) -> list[Block]:
    """Every fenced block of the page except outputs, which are attached to their code block.

    Executed blocks get their snippet includes expanded, from ``snippets_base``.
    """
    path = Path(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending_output_marker: int | None = None
    pending_skip: tuple[int, str] | None = None
    last_code: Block | None = None
    i = 0
    while i < len(lines):
        line_no = i + 1
        stripped = lines[i].strip()

        marker = _CODEBLOCKS_MARKER.match(stripped)
        if marker:
            keyword = marker.group(1).strip()
            if keyword != "expected-output":
                raise PageFormatError(
                    f"{path}:{line_no}",
                    f"unsupported marker 'pytest-codeblocks:{keyword}'; pages use only "
                    "'expected-output' (the blocks of a page already run as one session, "
                    "so 'cont' is not needed, and skips are declared with "
                    "<!--pytest.mark.skip(reason=\"...\")-->)",
                )
            if last_code is None or last_code.output is not None:
                raise PageFormatError(
                    f"{path}:{line_no}", "expected-output marker without a code block above it "
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
                    f"{path}:{line_no}",
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
                raise PageFormatError(f"{path}:{line_no}", f"fence {chars!r} is never closed")
            candidate = lines[j].lstrip(" ")
            if candidate.startswith(chars) and candidate.strip(chars[0]) == "":
                break
            body.append(lines[j][min(indent, len(lines[j]) - len(candidate)):])
            j += 1
        text = "".join(line + "\n" for line in body)
        info = opening.group("info").strip()

        if pending_output_marker is not None:
            assert last_code is not None
            last_code.output = Output(text=text, line=line_no, end=j + 1, marker_line=pending_output_marker, info=info)
            pending_output_marker = None
        else:
            block = Block(path=path, source=text, line=line_no, end=j + 1, indent=indent, fence=chars, info=info)
            if pending_skip is not None:
                block.marker_line, block.skip_reason = pending_skip
                pending_skip = None
            if block.executed:
                _expand_snippets(block, snippets_base)
            blocks.append(block)
            last_code = block
        i = j + 1

    if pending_output_marker is not None:
        raise PageFormatError(f"{path}:{pending_output_marker}", "expected-output marker with no fence after it")
    if pending_skip is not None:
        raise PageFormatError(f"{path}:{pending_skip[0]}", "skip marker with no fence after it")
    return blocks
