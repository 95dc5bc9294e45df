"""The server side of the fresh-interpreter replays: ``python -m tests.pagerun.fresh_server JOBS.json RESULTS.json N``.

Started by ``tests.pagerun.fresh.Replay``, with one environment's variables
and the project's import roots. It imports torch and ``torch._dynamo``
(which torch imports lazily the first time a page builds an optimizer, about
840 modules), then forks one child per page, at most N at a time. Each child
is a fresh interpreter in which ``import torch`` has already run, which is
what every page's first block does: its blocks run in a brand-new
``__main__`` session with nothing reset between them
(``execute(isolated=False)``), under Python's default warning filters, and
everything written to the file descriptors 1 and 2 (C++ libraries' log lines
included) is recorded block by block. RESULTS.json is written whole, once
every child has ended: per page its runs, or how its interpreter died.

The guarantee this relies on: importing these modules earlier than the page
would changes nothing the page prints. They read no variable a page sets, and
what they write while imported is recorded: if they write anything (a
warning, a log line), every page's first block reports it, as a reader would
see it. Forking is safe because the server has run no torch operation, so no
thread pool exists yet to be lost in the fork.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

from sitepages import Block

_BLOCK_FIELDS = [f.name for f in fields(Block) if not f.name.startswith("_") and f.name not in ("output", "warnings")]
CHILD_TIMEOUT = 180  # seconds one page may take before its interpreter is killed


def encode_block(block: Block) -> dict:
    """A block as the jobs file holds it (JSON)."""
    encoded = {name: getattr(block, name) for name in _BLOCK_FIELDS}
    encoded["path"] = str(block.path)
    return encoded


def decode_block(encoded: dict) -> Block:
    return Block(**{**encoded, "path": Path(encoded["path"])})


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


@contextlib.contextmanager
def _stopping_pages_on_exit(running: dict) -> Iterator:
    """A server cut short (SIGINT from the suite, or Ctrl-C) takes its pages' interpreters, in their own
    process groups, with it."""
    try:
        yield
    finally:
        for pid in running:
            _kill_group(pid)


def serve() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the suite stops it so, even if started ignoring it
    prelude = _preload()
    jobs_file, results_file, parallel = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    jobs = {name: [decode_block(block) for block in blocks]
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
