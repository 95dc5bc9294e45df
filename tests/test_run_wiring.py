"""Collecting has no side effects; the portability pass's servers start only for tests that will run.

``pytest --collect-only`` is what IDEs run to list tests: it must start no
fresh-interpreter server and leave nothing in the temporary directory. A run
starts the servers once collection is done, only if a portability test was
selected, and removes their folder and stops them however it ends
(tests/pagerun/plugin.py, tests/pagerun/portability.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest

from sitepages import ROOT
from tests.pagerun import portability
from tests.scratch_pages import python_block, write_page

# Runs pytest in this interpreter, recording every subprocess started that would be a
# fresh-interpreter server (Python's audit event for subprocess.Popen); prints them last.
SPY = f"""
import json, sys
import pytest
servers = []
def spy(event, args):
    if event == "subprocess.Popen" and any({portability.SERVER_MODULE!r} in str(arg) for arg in args[1]):
        servers.append([str(arg) for arg in args[1]])
sys.addaudithook(spy)
code = pytest.main(sys.argv[1:])
print("servers started:", json.dumps(servers))
sys.exit(code)
"""


def collect_only(temp, *arguments: str) -> tuple[subprocess.CompletedProcess, list]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    result = subprocess.run(
        [sys.executable, "-c", SPY, "--collect-only", "-q", "-p", "no:cacheprovider", *arguments],
        cwd=ROOT, env={**environment, "TMPDIR": str(temp), "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True, text=True, timeout=300,
    )
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert last.startswith("servers started:"), result.stdout + result.stderr
    return result, json.loads(last.removeprefix("servers started:"))


def test_collecting_the_portability_tests_starts_no_server_and_writes_nothing(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    result, servers = collect_only(temp, "tests/test_portability.py", "-k", "leaf-nodes")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "test_page_prints_the_same_in_a_fresh_interpreter[en/leaf-nodes.md-generic]" in result.stdout
    assert servers == [], f"pytest --collect-only started fresh-interpreter servers: {servers}"
    assert sorted(path.name for path in temp.iterdir()) == [], "pytest --collect-only left files in the temp dir"


# --- the run's wiring, with a stand-in for the servers ----------------------------------------

PORTABILITY_TESTS = f"""
import pytest
from tests.pagerun.environments import PORTABILITY

@pytest.mark.parametrize("environment", PORTABILITY[:1], ids=lambda environment: environment.name)
@pytest.mark.parametrize("source", ["docs/en/scratch.md"])
def {portability.TEST}(source, environment):
    pass

def test_something_else():
    pass

def test_the_reader_presses_ctrl_c():
    raise KeyboardInterrupt
"""


class StandInServer:
    """What portability.start makes of a Replay: a real process that would run for minutes, and its folder."""

    started: list[StandInServer] = []

    def __init__(self, jobs, environment, folder):
        self.jobs, self.folder = jobs, folder
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "exit").write_text("0", encoding="utf-8")  # as a real replay's thread does once its server ends
        self.process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        StandInServer.started.append(self)


@pytest.fixture
def wiring(pytester, monkeypatch, tmp_path):
    """Run pytest in this process on PORTABILITY_TESTS: (run(*args) -> outcome, temp dir, servers started)."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(portability, "Replay", StandInServer)
    monkeypatch.setattr(StandInServer, "started", [])
    # Only the plugin under test: the inner runs are in-process, and an installed plugin (pytest-benchmark,
    # say) would warn about xdist or slow every run down.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    write_page(pytester.path / "docs" / "en", python_block("print(1)", "1"), name="scratch.md")
    pytester.makepyfile(test_pages=PORTABILITY_TESTS)

    def run(*arguments: str):
        return pytester.runpytest_inprocess("-p", "tests.pagerun.plugin", "-p", "no:cacheprovider", *arguments,
                                            no_reraise_ctrlc=True)  # the inner run's Ctrl-C is not ours

    yield run, temp, StandInServer.started
    for server in StandInServer.started:
        server.process.kill()
        server.process.wait()


def test_collect_only_starts_nothing_and_writes_nothing(wiring):
    run, temp, started = wiring
    run("--collect-only").assert_outcomes()
    assert started == [] and list(temp.iterdir()) == []


def test_no_server_starts_when_no_portability_test_is_selected(wiring):
    run, temp, started = wiring
    run("-k", "something_else").assert_outcomes(passed=1)
    assert started == [] and list(temp.iterdir()) == []


def test_a_run_starts_the_selected_replays_once_then_stops_them_and_removes_their_folder(wiring):
    run, temp, started = wiring
    run("-k", "fresh_interpreter").assert_outcomes(passed=1)
    assert [list(server.jobs) for server in started] == [["docs/en/scratch.md"]]
    assert started[0].process.poll() is not None, "a server still runs after the run ended"
    assert list(temp.iterdir()) == [], "the run left its folder"


def test_an_interrupted_run_stops_the_replays_and_removes_their_folder(wiring):
    run, temp, started = wiring
    result = run("-k", "fresh_interpreter or ctrl_c")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert len(started) == 1 and started[0].process.poll() is not None, "a server outlived the interrupted run"
    assert list(temp.iterdir()) == [], "the interrupted run left its folder"
