"""The engine that runs every block enforces the reader's rules, in this process and in fresh interpreters.

Each test feeds it a small page that breaks one rule and asserts the report
names the rule, the page and the line, so no guard is one that cannot fail.
"""

import os
import signal
import time
from pathlib import Path

import pytest

from sitepages import parse
from sitepages.notebook import code_cell
from tests.pagerun.environments import Environment
from tests.pagerun.execute import execute, new_session
from tests.pagerun.fresh import Replay
from tests.scratch_pages import python_block as _python
from tests.scratch_pages import write_notebook as _notebook
from tests.scratch_pages import write_page as _page


def _broken_rules(page: Path) -> list[str]:
    return [rule for run in execute(parse(page)) for rule in run.broken_rules]


RULE_BREAKERS = [
    ("import torch\nprint(torch.rand(1).shape)", "draws random numbers without calling torch.manual_seed"),
    ("import torch\ntorch.set_grad_enabled(False)", "left grad mode"),
    ("import torch\ntorch.set_default_dtype(torch.float64)", "left default dtype"),
    ("import torch\ntorch.set_printoptions(precision=2)", "left print options"),
    ("import warnings\nwarnings.warn('careful')", "emitted UserWarning: careful"),
    ("import torch\nx = torch.ones(1, requires_grad=True)\nprint((x * 2).grad_fn)", "prints a memory address"),
]


@pytest.mark.parametrize("code, complaint", RULE_BREAKERS)
def test_a_block_that_breaks_a_rule_is_reported(tmp_path, code, complaint):
    broken = _broken_rules(_page(tmp_path, _python(code)))
    assert any(complaint in rule for rule in broken), broken


def test_writing_to_stderr_is_reported_with_the_text(tmp_path):
    [run] = execute(parse(_page(tmp_path, _python("import sys\nprint('oops', file=sys.stderr)"))))
    assert run.stderr == "oops\n"
    assert run.messages() == [f"{tmp_path / 'page.md'}:3: wrote to stderr, which the page does not show:\noops\n"]


def test_a_seeded_block_breaks_no_rule(tmp_path):
    page = _page(tmp_path, _python("import torch\ntorch.manual_seed(0)\nprint(torch.rand(1).shape)"))
    assert _broken_rules(page) == []


def test_state_is_reset_before_each_block(tmp_path):
    page = _page(
        tmp_path,
        _python("import torch\ntorch.set_default_dtype(torch.float64)"),
        _python("print(torch.get_default_dtype())"),
    )
    first, second = execute(parse(page))
    assert any("default dtype" in rule for rule in first.broken_rules)
    assert second.stdout == "torch.float32\n" and second.broken_rules == []


def test_blocks_share_one_session_that_is_the_main_module(tmp_path):
    page = _page(tmp_path, _python("answer = 42\nclass Point:\n    pass"),
                 _python("import pickle, sys\nprint(__name__, answer, sys.modules['__main__'].Point is Point)\n"
                         "print(type(pickle.loads(pickle.dumps(Point()))).__name__)"))
    assert [run.stdout for run in execute(parse(page))] == ["", "__main__ 42 True\nPoint\n"]


def test_until_stops_after_the_block_that_satisfies_it(tmp_path):
    page = _page(tmp_path, _python("a = 1"), _python("b = 2"), _python("c = 3"))
    session = new_session()
    runs = execute(parse(page), session, until=lambda names: "b" in names)
    assert len(runs) == 2 and "b" in vars(session) and "c" not in vars(session)


def test_a_raising_block_reports_its_page_line_and_stops_the_page(tmp_path):
    page = _page(tmp_path, _python("x = 1\ny = undefined_name"), _python("print('never runs')"))
    runs = execute(parse(page))
    assert len(runs) == 1
    assert runs[0].traceback.startswith("Traceback (most recent call last):\n")
    assert f'File "{page}", line 5' in runs[0].traceback
    assert "NameError: name 'undefined_name' is not defined" in runs[0].traceback
    assert "engine" not in runs[0].traceback, "the engine's own frames are hidden"


def test_a_wrong_output_is_reported_as_a_diff_with_its_page_line(tmp_path):
    page = _page(tmp_path, _python("print(6 * 7)", "41"))
    [run] = execute(parse(page))
    [message] = run.messages()
    assert message.startswith(f"{page}:3: printed output differs from the output block at line 8\n")
    assert "\n-41\n+42\n" in message and "pytest --update-outputs" in message


# --- notebooks get the same guarantees ----------------------------------------------


def test_a_cell_with_a_wrong_stored_output_fails_with_its_notebook_cell_and_a_diff(tmp_path):
    lab = _notebook(tmp_path, code_cell("x = 6 * 7\nprint(x)", "42\n"), code_cell("print(x + 1)", "44\n"))
    [message] = [m for run in execute(parse(lab)) for m in run.messages()]
    assert message.startswith(f"{lab}, cell 3: printed output differs from the cell's stored output")
    assert "\n-44\n+43\n" in message


@pytest.mark.parametrize(
    "code, complaint",
    RULE_BREAKERS[:1] + RULE_BREAKERS[4:] + [
        ("import torch\nx = torch.ones(1, requires_grad=True)\nx.register_hook(print)", "Jupyter would display"),
    ],
)
def test_notebook_cells_get_the_guarantees_of_page_blocks(tmp_path, code, complaint):
    messages = [m for run in execute(parse(_notebook(tmp_path, code_cell(code)))) for m in run.messages()]
    assert any(", cell 2: " in message and complaint in message for message in messages), messages


def test_a_raising_cell_reports_its_notebook_cell_and_line(tmp_path):
    lab = _notebook(tmp_path, code_cell("x = 1\ny = undefined_name"), code_cell("print('never runs')", "never runs\n"))
    runs = execute(parse(lab))
    assert len(runs) == 1
    assert f'File "{lab}, cell 2", line 2' in runs[0].traceback and "y = undefined_name" in runs[0].traceback


# --- fresh interpreters ----------------------------------------------------------------


def test_a_fresh_interpreter_records_each_blocks_output_and_stderr_at_the_file_descriptors(tmp_path):
    page = _page(
        tmp_path,
        _python("import os, torch\nprint('first')\nos.write(2, b'from C level\\n')"),
        _python("import warnings\nwarnings.warn('shown on stderr')\nprint(os.environ.get('PORTABILITY_PROBE'))"),
        _python("raise SystemExit(3)"),
        _python("print('never runs')"),
    )
    runs = Replay({"page": parse(page)}, Environment("probe", {"PORTABILITY_PROBE": "set"})).results()["page"]
    assert [run.stdout for run in runs] == ["first\n", "set\n", ""]
    assert runs[0].stderr == "from C level\n"
    assert "UserWarning: shown on stderr" in runs[1].stderr, "Python's default filters show warnings"
    assert runs[2].traceback.strip().endswith("SystemExit: 3")
    assert runs[1].where == f"{tmp_path / 'page.md'}:9 [probe]"


def test_a_fresh_interpreter_starts_clean_and_its_death_is_reported(tmp_path):
    state = _page(tmp_path, _python("print(sorted(name for name in globals() if not name.startswith('__')))\n"
                                    "import torch\nprint(torch.is_grad_enabled())"), name="state.md")
    dies = _page(tmp_path, _python("print('before')"),
                 _python("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"),
                 name="dies.md")
    results = Replay({"state": parse(state), "dies": parse(dies)}).results()
    assert results["state"][0].stdout == "[]\nTrue\n"
    assert "was killed by signal SIGKILL" in results["dies"][0].traceback


def test_processes_a_page_leaves_behind_are_stopped_with_its_interpreter(tmp_path):
    page = _page(tmp_path, _python(
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "print(child.pid)"
    ))
    [run] = Replay({"page": parse(page)}).results()["page"]
    pid = int(run.stdout)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    raise AssertionError(f"the process {pid} that the page started outlived its interpreter")
