"""The portability pass's fresh-interpreter replays: started as a run begins, read when its tests come.

The replays (one server per environment of ``tests.pagerun.environments``,
each forking one interpreter per page) are the suite's largest single piece of
work. Started only when their tests come, they left the cores idle while the
site was being built at the start of a run and while the last tests ran alone
at its end. So the first process of a run to finish collecting starts them
(tests/conftest.py, ``pytest_collection_finish``), in a folder every process
of the run shares, and the portability tests (tests/test_portability.py), on
whichever pytest-xdist worker they run, read the results from there.

A page whose code equals its twin's (comments aside, ``sitepages.twins``) is
replayed once, for both.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from filelock import FileLock

from sitepages import parse
from sitepages.twins import code_key
from tests.pagerun.environments import PORTABILITY
from tests.pagerun.fresh import Replay

TEST = "test_page_prints_the_same_in_a_fresh_interpreter"
_STARTED = pytest.StashKey[list]()


def run_folder() -> Path:
    """A folder the processes of this pytest run share (pytest-xdist gives its workers one run id)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
    return Path(tempfile.gettempdir()) / f"portability-{run}"


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


def start(session: pytest.Session) -> None:
    """Start the replays the collected portability tests need, unless another process of the run has."""
    wanted = plan(session.items)
    if not wanted:
        return
    folder = run_folder()
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / "start.lock")):
        if (folder / "started").exists():
            return
        (folder / "started").touch()
    replays = []
    for environment in PORTABILITY:
        if environment.name in wanted:
            jobs = {first: parse(first) for first in wanted[environment.name]}
            replays.append(Replay(jobs, environment, folder=folder / environment.name))
    session.config.stash[_STARTED] = replays


def finish(session: pytest.Session, interrupted: bool) -> None:
    """In the process that started them: stop the servers if the run was cut short, else let them end."""
    for replay in session.config.stash.get(_STARTED, []):
        if interrupted:
            replay.stop()
        else:
            replay.process.wait()


def results(items) -> dict[tuple[str, str], list]:
    """(environment name, source) -> its BlockRuns, for the collected portability tests."""
    from dataclasses import replace

    wanted = plan(items)
    found = {}
    for environment in PORTABILITY:
        if environment.name not in wanted:
            continue
        groups = wanted[environment.name]
        jobs = {first: parse(first) for first in groups}
        runs = Replay.attach(jobs, environment, run_folder() / environment.name).results()
        for first, same in groups.items():
            for source in same:
                own = [block for block in parse(source) if block.executed]
                found[(environment.name, source)] = [
                    replace(run, block=block) for run, block in zip(runs[first], own, strict=False)]
    shutil.rmtree(run_folder(), ignore_errors=True)  # every server has ended and been read
    return found
