"""ruff, pinned in pyproject.toml, passes on the project's Python, its notebooks and the code of every page.

Readers copy the pages' code, so it is linted like the project's own: the rules
are pyproject.toml's ``[tool.ruff]``, with the exceptions a tutorial needs
written there, each with its reason. ruff reads notebooks itself; a Markdown
page is handed to it as one file, ``docs/LANG/PAGE.md.py``, holding the page's
executed blocks at their own lines (the rest blank), so that a finding names
the page's line. The Chinese pages run the same code as their English twins,
comments aside (tests/test_translation_parity.py), so the English pages stand
for both.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sitepages import ROOT, page_id, pages, parse
from tests.scratch_pages import python_block, write_page


def _ruff(*arguments: str, stdin: str | None = None) -> list[dict]:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "json", *arguments],
                            cwd=ROOT, input=stdin, capture_output=True, text=True)
    if result.returncode not in (0, 1):  # 1: findings; anything else: ruff itself failed
        raise RuntimeError(f"ruff failed ({result.returncode}):\n{result.stderr}")
    return json.loads(result.stdout or "[]")


def page_as_module(page: Path) -> str:
    """The page's executed blocks as one module, each block's code at the page lines it is shown on."""
    lines: list[str] = []
    for block in parse(page):
        if not block.executed:
            continue
        first = block.line + 1  # the line after the opening fence
        lines += [""] * (first - 1 - len(lines))
        if block.included_file is None:
            lines += block.code.splitlines()
        else:  # the file (snippets/) is linted with the project's Python; here it stands for the names it binds
            lines.append(_binds(block.included_file, block.code))

    return "\n".join(lines) + "\n"


def _binds(path: str, code: str) -> str:
    """One line that binds, as the included file does, every name it defines at its top level."""
    names = set()
    for node in ast.parse(code).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*"}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {target.id for target in targets if isinstance(target, ast.Name)}
    names.discard("annotations")
    module = Path(path).with_suffix("").as_posix().replace("/", ".")
    return f"from {module} import {', '.join(sorted(names))}  # noqa: F401, E501"


def page_findings(page: Path) -> list[str]:
    found = _ruff("--stdin-filename", f"{page.as_posix()}.py", "-", stdin=page_as_module(page))
    return [f"{page}:{item['location']['row']}: {item['code']} {item['message']}" for item in found]


def test_the_projects_python_and_notebooks_pass_ruff():
    findings = [f"{Path(item['filename']).relative_to(ROOT)}:{item['location']['row']}: {item['code']} "
                f"{item['message']}" for item in _ruff(".")]
    assert not findings, "ruff (pyproject.toml's [tool.ruff]):\n" + "\n".join(findings)


@pytest.mark.parametrize("page", pages("en"), ids=page_id)
def test_the_pages_code_passes_ruff(page):
    findings = page_findings(page)
    assert not findings, "\n".join(findings)


def test_the_page_check_names_the_page_line_of_a_finding(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = write_page(Path("docs/en"), python_block("import torch"),
                      python_block("x = torch.ones(2)\nprint(undefined_name)"))
    # write_page puts the blocks at lines 3 and 7: the undefined name is on line 9
    assert page_findings(page) == ["docs/en/page.md:9: F821 Undefined name `undefined_name`"]
