"""Replay pages in fresh interpreters: one server process per environment, one fork per page.

A reader pastes a page into a new interpreter. Starting one interpreter per
page and environment would import torch each time (about 1.5 s), so instead
one server process is started per environment, with that environment's
variables; it imports torch and ``torch._dynamo`` (which torch imports lazily
the first time a page builds an optimizer, about 840 modules), then forks one
child per page. Each child is a fresh interpreter in which ``import torch``
has already run, which is what every page's first block does: its blocks
run in a brand-new ``__main__`` session with nothing reset between them
(``execute(isolated=False)``), under Python's default warning filters, and
everything written to the file descriptors 1 and 2 (C++ libraries' log lines
included) is recorded block by block.

The guarantee this relies on: importing these modules earlier than the page
would changes nothing the page prints. They read no variable a page sets, and
what they write while imported is recorded: if they write anything (a
warning, a log line), every page's first block reports it, as a reader would
see it. Forking is safe because the server has run no torch operation, so no
thread pool exists yet to be lost in the fork.

    replay = Replay({"docs/en/a.md": blocks, ...}, environment)   # starts the server
    runs = replay.results()                                       # {name: [BlockRun]}

``python`` runs the server with another interpreter, e.g. one with another torch
(tests/tools/torch_versions.py).

The server side is ``python -m tests.pagerun.fresh JOBS.json RESULTS.json``, with the
project's import roots (``tests.pagerun.import_roots``).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

from sitepages import ROOT, Block
from tests.pagerun.environments import AS_INSTALLED, Environment
from tests.pagerun.import_roots import child_environment

_BLOCK_FIELDS = [f.name for f in fields(Block) if not f.name.startswith("_") and f.name not in ("output", "warnings")]
CHILD_TIMEOUT = 180  # seconds one page may take before its interpreter is killed


class Replay:
    """A server process replaying named lists of blocks in fresh interpreters under one environment.

    With ``folder``, the server keeps its jobs, results and log there, so that
    another process of the same run can read the results (``Replay.attach``):
    the portability pass starts its servers when a run begins and reads their
    results when its tests come (tests/pagerun/portability.py).
    """

    def __init__(self, jobs: dict[str, list[Block]], environment: Environment = AS_INSTALLED,
                 parallel: int | None = None, python: str = sys.executable, folder: Path | None = None):
        self.jobs = {name: [block for block in blocks if block.executed] for name, blocks in jobs.items()}
        self.environment = environment.for_this_cpu()
        self._temporary = None if folder else tempfile.TemporaryDirectory(prefix="fresh-replay-")
        self.folder = Path(folder or self._temporary.name)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = None
        variables = child_environment({**os.environ, **self.environment.variables, "PYTHONIOENCODING": "utf-8"})
        jobs_file = self.folder / "jobs.json"
        jobs_file.write_text(json.dumps(
            {name: [_encode(block) for block in blocks] for name, blocks in self.jobs.items()}
        ), encoding="utf-8")
        log = (self.folder / "server.log").open("w") if folder else subprocess.PIPE
        self.process = subprocess.Popen(
            [python, "-m", "tests.pagerun.fresh", str(jobs_file), str(self.folder / "results.json"),
             str(parallel or os.cpu_count() or 1)],
            cwd=ROOT, env=variables, text=True, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT if folder else subprocess.PIPE,
        )
        if folder:  # another process may read the results: say how the server ended, once it has
            threading.Thread(target=self._record_exit, daemon=True).start()

    def _record_exit(self) -> None:
        code = self.process.wait()
        (self.folder / "exit.tmp").write_text(str(code), encoding="utf-8")
        os.replace(self.folder / "exit.tmp", self.folder / "exit")

    @classmethod
    def attach(cls, jobs: dict[str, list[Block]], environment: Environment, folder: Path) -> Replay:
        """The replay another process of this run started in ``folder``, to read its results."""
        replay = cls.__new__(cls)
        replay.jobs = {name: [block for block in blocks if block.executed] for name, blocks in jobs.items()}
        replay.environment, replay.folder, replay.process, replay._temporary = (
            environment.for_this_cpu(), Path(folder), None, None)
        return replay

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()

    def _wait(self, timeout: float) -> str:
        """Wait for the server to end; what it wrote, if it failed."""
        if self.process is not None and self._temporary is not None:
            try:
                stdout, stderr = self.process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                raise
            return "" if self.process.returncode == 0 else f"{stdout}{stderr}"
        deadline = time.monotonic() + timeout
        while not (self.folder / "exit").is_file():
            if time.monotonic() > deadline:
                raise TimeoutError(f"the fresh-interpreter server ({self.environment}) did not end in {timeout} s")
            time.sleep(0.1)
        code = (self.folder / "exit").read_text(encoding="utf-8")
        return "" if code == "0" else (self.folder / "server.log").read_text(encoding="utf-8", errors="replace")

    def results(self, timeout: float = 600) -> dict[str, list]:
        """Each job's BlockRuns, in order; a job whose interpreter died gets one run saying how."""
        from tests.pagerun.execute import BlockRun

        failure = self._wait(timeout)
        if failure:
            raise RuntimeError(f"the fresh-interpreter server ({self.environment}) failed:\n{failure}")
        try:
            reported = json.loads((self.folder / "results.json").read_text(encoding="utf-8"))
        finally:
            if self._temporary is not None:
                self._temporary.cleanup()
        results = {}
        for name, blocks in self.jobs.items():
            job = reported[name]
            runs = [
                BlockRun(block, stdout=run["stdout"], stderr=run["stderr"], warnings=run["warnings"],
                         traceback=run["traceback"],
                         broken_rules=run["broken_rules"], environment=self.environment.name)
                for block, run in zip(blocks, job["runs"], strict=False)
            ]
            if job["died"] and blocks:  # no report: the page's first block carries the news
                runs = [BlockRun(blocks[0], traceback=f"the fresh interpreter {job['died']}",
                                 environment=self.environment.name)]
            results[name] = runs
        return results


def _encode(block: Block) -> dict:
    encoded = {name: getattr(block, name) for name in _BLOCK_FIELDS}
    encoded["path"] = str(block.path)
    return encoded


def _decode(encoded: dict) -> Block:
    return Block(**{**encoded, "path": Path(encoded["path"])})


# ---------------------------------------------------------------- the server side
class FileDescriptorCapture:
    """Points file descriptors 1 and 2 at files, and hands out what each block wrote to them."""

    def __init__(self, directory: Path) -> None:
        self._readers = {}
        for fd, name in ((1, "stdout"), (2, "stderr")):
            path = directory / name
            writer = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(writer, fd)
            os.close(writer)
            self._readers[name] = open(path, "rb")  # noqa: SIM115 - its own offset, read block by block
        self._libc = ctypes.CDLL(None)

    @contextlib.contextmanager
    def __call__(self) -> Iterator:
        from tests.pagerun.execute import Captured

        captured = Captured()
        try:
            yield captured
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            self._libc.fflush(None)  # C libraries' buffered stdio, too
            captured.stdout = self._readers["stdout"].read().decode("utf-8", "replace")
            captured.stderr = self._readers["stderr"].read().decode("utf-8", "replace")


def _child(blocks: list[Block], report: Path, scratch: Path) -> None:
    """In the forked child: run the page as a fresh session, write what each block did to ``report``."""
    from tests.pagerun.execute import execute

    sys.argv = [""]  # as in an interactive interpreter
    runs = execute(blocks, isolated=False, capture=FileDescriptorCapture(scratch))
    report.write_text(json.dumps([
        {"stdout": run.stdout, "stderr": run.stderr, "warnings": run.warnings, "traceback": run.traceback,
         "broken_rules": run.broken_rules}
        for run in runs
    ]), encoding="utf-8")


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"was killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exited with status {os.waitstatus_to_exitcode(status)} before reporting"


@contextlib.contextmanager
def _stopping_pages_on_exit(running: dict) -> Iterator:
    """A server cut short (SIGINT from the suite, or Ctrl-C) takes its pages' interpreters, in their own
    process groups, with it."""
    try:
        yield
    finally:
        for pid in running:
            _kill_group(pid)


PRELOADED = ("torch", "torch._dynamo")


def _preload() -> str:
    """Import PRELOADED; return what that wrote to the file descriptors 1 and 2."""
    import importlib

    with tempfile.TemporaryDirectory(prefix="fresh-preload-") as tmp:
        saved = {fd: os.dup(fd) for fd in (1, 2)}
        capture = FileDescriptorCapture(Path(tmp))
        try:
            with capture() as written:
                for name in PRELOADED:
                    importlib.import_module(name)
        finally:
            for fd, original in saved.items():
                os.dup2(original, fd)
                os.close(original)
    return written.stdout + written.stderr


def serve() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the suite stops it so, even if started ignoring it
    prelude = _preload()
    jobs_file, results_file, parallel = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    jobs = {name: [_decode(block) for block in blocks]
            for name, blocks in json.loads(jobs_file.read_text(encoding="utf-8")).items()}
    results: dict[str, dict] = {}
    running: dict[int, tuple[str, Path, float]] = {}
    timed_out: set[int] = set()
    with tempfile.TemporaryDirectory(prefix="fresh-") as tmp, _stopping_pages_on_exit(running):
        pending = list(enumerate(jobs.items()))
        while pending or running:
            while pending and len(running) < parallel:
                number, (name, blocks) = pending.pop(0)
                scratch = Path(tmp) / str(number)
                scratch.mkdir()
                report = scratch / "report.json"
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    os.setpgid(0, 0)  # its own process group: whatever it starts is cleaned up with it
                    code = 0
                    try:
                        _child(blocks, report, scratch)
                    except BaseException:  # noqa: BLE001 - the parent reports a missing report
                        code = 70
                    finally:
                        os._exit(code)
                running[pid] = (name, report, time.monotonic())
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                for child, (_, _, started) in list(running.items()):
                    if time.monotonic() - started > CHILD_TIMEOUT and child not in timed_out:
                        _kill_group(child)
                        timed_out.add(child)
                select.select([], [], [], 0.005)
                continue
            name, report, _ = running.pop(pid)
            _kill_group(pid)  # processes the page started and left behind (a hung worker, say)
            if report.is_file():
                runs = json.loads(report.read_text(encoding="utf-8"))
                if prelude and runs:
                    written = f"(written while importing {', '.join(PRELOADED)})\n{prelude}"
                    runs[0]["stderr"] = written + runs[0]["stderr"]
                results[name] = {"runs": runs, "died": None}
            else:
                died = f"was stopped after {CHILD_TIMEOUT} s" if pid in timed_out else _describe(status)
                results[name] = {"runs": [], "died": died}
    written = results_file.with_suffix(".tmp")
    written.write_text(json.dumps(results), encoding="utf-8")
    os.replace(written, results_file)  # whole or not at all, for a process waiting for it


if __name__ == "__main__":
    serve()
