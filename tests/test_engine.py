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


# --- warnings: shown in a block of their own, as a reader's console shows them ------------


def _warned(tmp_path, code: str) -> str:
    [run] = execute(parse(_page(tmp_path, _python(code))))
    return run.warnings


def test_a_warning_the_page_does_not_show_fails_the_block_with_a_diff(tmp_path):
    [run] = execute(parse(_page(tmp_path, _python("import warnings\nwarnings.warn('careful')"))))
    assert not run.output_matches
    [message] = run.messages()
    assert message.startswith(f"{tmp_path / 'page.md'}:3: warnings differ from no warnings block\n")
    assert "+UserWarning: careful\n" in message


def test_a_warning_the_page_shows_passes_and_its_block_is_read(tmp_path):
    page = _page(tmp_path, _python("import warnings\nwarnings.warn('careful')\nprint(1)", "1")
                 + "\n\n<!--pagerun:expected-warnings-->\n```text\nUserWarning: careful\n```")
    [block] = parse(page)
    assert (block.expected, block.expected_warnings) == ("1\n", "UserWarning: careful\n")
    [run] = execute([block])
    assert run.messages() == []


def test_torch_build_noise_is_dropped_from_a_warning(tmp_path):
    code = "import torch\ny = torch.ones(1, requires_grad=True) * 2\ny.grad"
    warned = _warned(tmp_path, code)
    assert warned.startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor")
    assert "Triggered internally" not in warned and warned.endswith("pytorch/pull/30531 for more information.\n")


def test_warnings_follow_the_console_default_filters(tmp_path):
    # Once per place, as a reader's console shows a warning raised in a loop.
    loop = "import warnings\nfor i in range(3):\n    warnings.warn('again')"
    assert _warned(tmp_path, loop) == "UserWarning: again\n"
    # A DeprecationWarning shows when the reader's own code raises it, not from inside a library.
    assert _warned(tmp_path, "import warnings\nwarnings.warn('old', DeprecationWarning)") == "DeprecationWarning: old\n"
    raised_in_json = "import warnings; warnings.warn('lib', DeprecationWarning)"
    library = f"import json\nexec(compile({raised_in_json!r}, 'lib', 'exec'), vars(json))"
    assert _warned(tmp_path, library) == ""


def test_a_warning_from_the_same_place_shows_once_per_session_as_in_a_console(tmp_path):
    # A library function that warns from one place: a reader's session shows it the first time only.
    library = _page(tmp_path, _python("import json, warnings\n"
                                      "exec(compile('def old():\\n    warnings.warn(\"old API\", FutureWarning)', "
                                      "'lib.py', 'exec'), vars(json))\njson.old()"),
                    _python("json.old()"), name="library.md")
    assert [run.warnings for run in execute(parse(library))] == ["FutureWarning: old API\n", ""]
    # The reader's own code warning from two different lines shows twice.
    own = _page(tmp_path, _python("import warnings\nwarnings.warn('mine')"), _python("warnings.warn('mine')"),
                name="own.md")
    assert [run.warnings for run in execute(parse(own))] == ["UserWarning: mine\n"] * 2


def test_a_warning_torch_gives_once_per_process_shows_on_every_page(tmp_path):
    # torch warns once per process about create_graph=True with a tensor's .grad (a reference cycle).
    code = ("import torch\nx = torch.ones(1, requires_grad=True)\n(x * x).sum().backward(create_graph=True)\n"
            "x.grad = None")
    first, second = (_warned(tmp_path, code) for _ in range(2))
    assert first == second and first.startswith("UserWarning: Using backward() with create_graph=True")


def test_a_process_a_block_forks_gives_a_once_per_process_warning_once(tmp_path):
    # A forked child is a new process of the reader's session: torch's setting there is the one the
    # block found (off), so two steps that each raise a once-per-process warning warn once.
    code = ("import torch, multiprocessing, warnings\n"
            "def child(queue):\n"
            "    with warnings.catch_warnings(record=True) as caught:\n"
            "        warnings.simplefilter('always')\n"
            "        for _ in range(2):\n"
            "            x = torch.ones(1, requires_grad=True)\n"
            "            (x * x).sum().backward(create_graph=True)\n"
            "            x.grad = None\n"
            "    queue.put((torch.is_warn_always_enabled(), len(caught)))\n"
            "context = multiprocessing.get_context('fork')\n"
            "queue = context.SimpleQueue()\n"
            "process = context.Process(target=child, args=(queue,))\n"
            "process.start()\n"
            "process.join()\n"
            "print(queue.get(), torch.is_warn_always_enabled())")
    [run] = execute(parse(_page(tmp_path, _python(code))))
    assert run.traceback is None and run.stdout == "(False, 1) True\n", (run.stdout, run.traceback)


def test_a_malformed_warnings_marker_is_a_page_format_error(tmp_path):
    from sitepages import PageFormatError

    dangling = _page(tmp_path, "<!--pagerun:expected-warnings-->\n```text\nUserWarning: x\n```", name="a.md")
    with pytest.raises(PageFormatError, match=r"a.md:3: expected-warnings marker without an executed code block"):
        parse(dangling)
    after = _page(tmp_path, _python("print(1)") + "\n\n<!--pagerun:expected-warnings-->\n```text\nW\n```"
                  "\n\n<!--pytest-codeblocks:expected-output-->\n```text\n1\n```", name="b.md")
    with pytest.raises(PageFormatError, match=r"b.md:12: expected-output marker without a code block above it"):
        parse(after)


def test_a_notebook_cells_warnings_are_its_stderr_stream(tmp_path):
    cell = code_cell("import warnings\nwarnings.warn('careful')", stderr="UserWarning: careful\n")
    [block] = parse(_notebook(tmp_path, cell))
    assert block.expected_warnings == "UserWarning: careful\n"
    assert execute([block])[0].messages() == []


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
    assert runs[1].stderr == "" and runs[1].warnings == "UserWarning: shown on stderr\n", "caught, as in-process"
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
