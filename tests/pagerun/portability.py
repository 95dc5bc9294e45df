"""The portability pass's fresh-interpreter replays: started as a run begins, read when its tests come.

The replays (one server per environment of ``tests.pagerun.environments``,
each forking one interpreter per page) are the suite's largest single piece of
work. Started only when their tests come, they left the cores idle while the
site was being built at the start of a run and while the last tests ran alone
at its end. So the first process of a run to finish collecting starts them
(``tests/pagerun/plugin.py``, ``pytest_collection_finish``), in a folder every
process of the run shares, and the portability tests (tests/test_portability.py),
on whichever pytest-xdist worker they run, read the results from there.

They start only when tests will run (not under ``--collect-only`` or
``--setup-plan``) and only for the portability tests left after selection
(``-k``, file arguments, deselection): a collection starts nothing and writes
nothing. The run's folder is named by the process that controls the run (the
only one without pytest-xdist, its controller with it), which removes it when
the run ends, however it ends; the process that started the servers stops them
if the run was cut short.

A page whose code equals its twin's (comments aside, ``sitepages.twins``) is
replayed once, for both.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from filelock import FileLock

from sitepages import parse
from sitepages.twins import code_key
from tests.pagerun.environments import PORTABILITY
from tests.pagerun.fresh import Replay

TEST = "test_page_prints_the_same_in_a_fresh_interpreter"
SERVER_MODULE = "tests.pagerun.fresh"  # what a server's command line runs (``python -m``)
WORKER_INPUT = "portability_folder"  # the run folder, handed by pytest-xdist's controller to its workers
_FOLDER = pytest.StashKey[Path]()
_STARTED = pytest.StashKey[list]()


def run_folder(config: pytest.Config) -> Path:
    """The folder the processes of this run share; named (not created) by the process controlling the run."""
    if hasattr(config, "workerinput"):
        return Path(config.workerinput[WORKER_INPUT])
    if _FOLDER not in config.stash:
        config.stash[_FOLDER] = Path(tempfile.gettempdir()) / f"portability-{uuid.uuid4().hex[:12]}"
    return config.stash[_FOLDER]


def plan(items) -> dict[str, dict[str, list[str]]]:
    """Environment name -> {the page replayed: the pages (it and its twins) its run stands for}."""
    selected: dict[str, set[str]] = {}
    for item in items:
        if getattr(item, "originalname", None) == TEST:
            params = item.callspec.params
            selected.setdefault(params["environment"].name, set()).add(str(params["source"]))
    by_code: dict[tuple, list[str]] = {}
    for source in sorted(set().union(*selected.values())):
        by_code.setdefault(code_key(parse(source)), []).append(source)
    return {name: {same[0]: same for same in by_code.values() if wanted & set(same)}
            for name, wanted in selected.items()}


def tests_will_run(config: pytest.Config) -> bool:
    """False for a run that only collects (``--collect-only``, as IDEs do) or only plans fixtures."""
    return not (config.getoption("collectonly", False) or config.getoption("setupplan", False))


def start(session: pytest.Session) -> None:
    """Start the replays the selected portability tests need, unless another process of the run has."""
    if not tests_will_run(session.config):
        return
    wanted = plan(session.items)
    if not wanted:
        return
    folder = run_folder(session.config)
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / "start.lock")):
        if (folder / "started").exists():
            return
        (folder / "started").touch()
    replays = session.config.stash[_STARTED] = []
    for environment in PORTABILITY:
        if environment.name in wanted:
            jobs = {first: parse(first) for first in wanted[environment.name]}
            replays.append(Replay(jobs, environment, folder=folder / environment.name))
            # For the controller, should this process die without stopping them (see finish).
            with (folder / "servers").open("a", encoding="utf-8") as servers:
                servers.write(f"{replays[-1].process.pid}\n")


def finish(session: pytest.Session, exitstatus: int) -> None:
    """At the end of the run, in each process: stop or await the servers it started, and, in the process
    controlling the run, remove the run's folder (after stopping servers whose starter died)."""
    config = session.config
    worker = hasattr(config, "workerinput")
    for replay in config.stash.get(_STARTED, []):
        if worker and exitstatus != pytest.ExitCode.INTERRUPTED:
            replay.process.wait()  # another worker may still be reading its results
        else:  # every test of this process has run: whatever still runs is not needed
            _stop(replay.process)
        _await_exit_record(replay.folder)
    if not worker:
        folder = run_folder(config)
        _stop_orphans(folder)
        shutil.rmtree(folder, ignore_errors=True)


def _stop(process: subprocess.Popen) -> None:
    """Interrupt a server (it kills its pages' interpreters and removes its scratch folder), kill it if it lingers."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _await_exit_record(folder: Path, timeout: float = 5) -> None:
    """The starter's thread writes how a server ended (``exit``) once it has: let it, before the folder goes."""
    deadline = time.monotonic() + timeout
    while not (folder / "exit").is_file() and time.monotonic() < deadline:
        time.sleep(0.05)


def _stop_orphans(folder: Path) -> None:
    """Stop the servers listed in ``folder`` that still run: their starter (a pytest-xdist worker) died."""
    try:
        pids = [int(line) for line in (folder / "servers").read_text(encoding="utf-8").split()]
    except (OSError, ValueError):
        return
    for pid in filter(_is_server, pids):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + 10
        while _is_server(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _is_server(pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _is_server(pid: int) -> bool:
    """Whether ``pid`` still runs a server (not another process since given its number, nor a zombie)."""
    try:
        return SERVER_MODULE.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def results(session: pytest.Session) -> dict[tuple[str, str], list]:
    """(environment name, source) -> its BlockRuns, for the selected portability tests."""
    wanted = plan(session.items)
    found = {}
    for environment in PORTABILITY:
        if environment.name not in wanted:
            continue
        groups = wanted[environment.name]
        jobs = {first: parse(first) for first in groups}
        runs = Replay.attach(jobs, environment, run_folder(session.config) / environment.name).results()
        for first, same in groups.items():
            for source in same:
                own = [block for block in parse(source) if block.executed]
                found[(environment.name, source)] = [
                    replace(run, block=block) for run, block in zip(runs[first], own, strict=False)]
    return found
