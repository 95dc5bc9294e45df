"""Every writers' tool under tests/tools/ runs as its documentation says: ``python -m tests.tools NAME``.

A tool is run by the dispatcher (tests/tools/__main__.py), which gives it the
project's import roots; ``python tests/tools/NAME.py`` and ``python -m
tests.tools.NAME`` stop at the first import. So no file may give those forms;
``python -m tests.tools --help`` lists every tool; and every tool imports and
answers ``--help`` (its options, nothing done), so that a tool broken by a
change elsewhere (a helper it imports renamed, say) fails here, not in a
writer's hands. Nothing here runs what a tool does.
"""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from sitepages import ROOT
from tests.tools.__main__ import COMMAND, tool_file, tool_names

TOOLS = tool_names()
# The forms that fail, with a tool's real (lower-case) name: its file run as a script, or its module
# run without the dispatcher. Prose that names the forms with a placeholder (NAME) is not a command.
WRONG_FORMS = re.compile(r"python3?\s+(?:\./)?tests/tools/[a-z0-9_/]+\.py"
                         r"|python3?\s+-m\s+tests\.tools\.[a-z_][a-z0-9_.]*")
SKIPPED_FOLDERS = {".git", "node_modules", "site", "test-artifacts", "__pycache__", ".pytest_cache", ".ruff_cache"}
TEXT_SUFFIXES = {".py", ".md", ".yml", ".yaml", ".toml", ".txt", ".cfg", ".ini", ".sh", ".json", ".ipynb", ""}


def wrong_commands(root: Path) -> list[str]:
    """``file:line: command`` for every tool command under ``root`` given in a form that fails."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name not in SKIPPED_FOLDERS)
        for name in sorted(files):
            path = Path(folder, name)
            if path.suffix not in TEXT_SUFFIXES:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            for number, line in enumerate(text.splitlines(), start=1):
                where = f"{path.relative_to(root)}:{number}"
                found += [f"{where}: {match.group(0)}" for match in WRONG_FORMS.finditer(line)]
    return found


def test_no_file_gives_a_tool_command_that_fails():
    wrong = wrong_commands(ROOT)
    assert not wrong, (
        f"tool commands that stop at their first import; write `{COMMAND} NAME` "
        "(the dispatcher gives the tool the project's import roots):\n" + "\n".join(wrong)
    )


def test_the_check_finds_both_wrong_forms(tmp_path):
    script, module = "tests/tools/" + "benchmarks/page_weight.py", "tests.tools." + "update_figures"
    (tmp_path / "tool.py").write_text(
        f'"""Run it:\n\n    python {script}\n    python -m {module}\n    python -m tests.tools update_figures\n'
        '    python -m tests.tools.NAME does not work\n"""\n', encoding="utf-8")
    assert wrong_commands(tmp_path) == [f"tool.py:3: python {script}", f"tool.py:4: python -m {module}"]


def _run(*arguments: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *arguments], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=env)


def test_help_lists_every_tool_and_how_to_run_one():
    result = _run("tests.tools", "--help")
    assert result.returncode == 0, result.stderr
    listed = [line.split()[0] for line in result.stdout.split("Tools (", 1)[-1].splitlines()[1:] if line.strip()]
    assert listed == TOOLS, f"`{COMMAND} --help` lists {listed}; the tools are {TOOLS}"
    assert f"run one as: {COMMAND} NAME" in result.stdout
    assert len(TOOLS) >= 9, f"tool discovery found only {TOOLS}"


def test_the_dispatcher_runs_a_tool_and_refuses_an_unknown_one():
    result = _run("tests.tools", "update_figures", "--help")
    assert result.returncode == 0 and "usage:" in result.stdout, result.stdout + result.stderr
    unknown = _run("tests.tools", "no_such_tool")
    assert unknown.returncode == 2 and "no tool named 'no_such_tool'; the tools are: " in unknown.stderr


def test_a_tool_run_without_the_dispatcher_says_how_to_run_it():
    bare = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = _run("tests.tools.update_figures", "--help", env=bare)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "run it as  python -m tests.tools update_figures  from the repository root" in result.stderr


@pytest.mark.parametrize("name", TOOLS)
def test_tool_imports_and_answers_help_without_doing_anything(name, monkeypatch, capsys):
    """As ``python -m tests.tools NAME --help`` does, in this process (pytest has the import roots already)."""
    module = ".".join(tool_file(name).relative_to(ROOT).with_suffix("").parts)
    monkeypatch.setattr(sys, "argv", [name, "--help"])
    monkeypatch.delitem(sys.modules, module, raising=False)  # imported by another test: run it afresh, as -m does
    with pytest.raises(SystemExit) as exit_:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    printed = capsys.readouterr()
    assert exit_.value.code == 0 and printed.out.startswith("usage:"), (
        f"`{COMMAND} {name} --help` should print the tool's usage and do nothing else "
        f"(exit {exit_.value.code}):\n{printed.out}{printed.err}"
    )


def test_the_reader_benchmark_lists_its_pages_without_a_browser():
    """``benchmarks.reader --dry-run`` names every nav page in both languages and the learners' path, and
    starts no browser: with CHROMIUM pointing nowhere it still answers."""
    env = {**os.environ, "CHROMIUM": "/nonexistent/chromium"}
    result = _run("tests.tools", "benchmarks.reader", "--dry-run", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "  /leaf-nodes/ " in result.stdout and "  /zh/leaf-nodes/ " in result.stdout, result.stdout
    assert "learners' path: " in result.stdout and "nothing measured" in result.stdout, result.stdout
    unmatched = _run("tests.tools", "benchmarks.reader", "--dry-run", "--pages", "no-such-page*", env=env)
    assert unmatched.returncode == 2 and "matches no page of mkdocs.yml's nav" in unmatched.stderr, (
        unmatched.stdout + unmatched.stderr)
