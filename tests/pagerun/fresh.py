"""Replay pages in fresh interpreters: the client, which starts a server per environment and reads its results.

A reader pastes a page into a new interpreter. Starting one interpreter per
page and environment would import torch each time (about 1.5 s), so instead
one server process (``tests.pagerun.fresh_server``) is started per
environment, with that environment's variables; it imports torch once, then
forks one child per page, a fresh interpreter in which ``import torch`` has
already run (see that module for why this changes nothing a page prints).
Each page's blocks run there in a brand-new ``__main__`` session, and what
they write to the file descriptors 1 and 2 comes back block by block.

    replay = Replay({"docs/en/a.md": blocks, ...}, environment)   # starts the server
    runs = replay.results()                                       # {name: [BlockRun]}

``python`` runs the server with another interpreter, e.g. one with another torch
(tests/tools/torch_versions.py). The server gets the project's import roots
(``tests.pagerun.import_roots``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from sitepages import ROOT, Block
from tests.pagerun.environments import AS_INSTALLED, Environment
from tests.pagerun.fresh_server import encode_block
from tests.pagerun.import_roots import child_environment


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
            {name: [encode_block(block) for block in blocks] for name, blocks in self.jobs.items()}
        ), encoding="utf-8")
        log = (self.folder / "server.log").open("w") if folder else subprocess.PIPE
        self.process = subprocess.Popen(
            [python, "-m", "tests.pagerun.fresh_server", str(jobs_file), str(self.folder / "results.json"),
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
