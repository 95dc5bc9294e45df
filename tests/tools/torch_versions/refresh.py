"""Running the stale pages on one release (``run_release``), and on every release in turn (``refresh``).

``run_release`` makes the release's environment, runs every English page and
notebook whose data is stale in fresh interpreters (``tests.pagerun.fresh``,
the engine of the portability pass), writes what each block did to
``OUT/RELEASE.json`` (data.py describes the file) and removes the
environment. ``refresh`` does that for each release and merges each result
as soon as it is written, so it is resumable: a page whose stored data
matches its code is not run again.
"""

from __future__ import annotations

import datetime
import platform
import re
import time
from pathlib import Path

from sitepages import ROOT, Block
from sitepages.torch_versions import digest, page_code_hash
from tests.pagerun.fresh import Replay

from .data import merge, save, stale
from .venvs import Environment

PAGE_TIMEOUT = 3600  # seconds for all the pages of one release (each page is stopped after 180 s)


def needs_tensorflow(blocks: list[Block]) -> bool:
    return any(re.search(r"^\s*import tensorflow\b", block.code, re.M) for block in blocks)


# ------------------------------------------------------------------ what a block did
def _clean(text: str, environment: Environment) -> str:
    """What belongs to this machine and moment out of a message: the environment's site-packages, the
    repository's path, and the date, time and process id that C++ log lines (glog) start with."""
    text = re.sub(r"\S*/site-packages/", ".../site-packages/", text)
    text = re.sub(r"(?m)^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ", r"\1 ", text)
    return text.replace(str(environment.folder), "<venv>").replace(str(ROOT) + "/", "")


def as_pinned(stdout: str, full_version: str) -> str:
    """What a block printed, with the release's own version string written as the pinned one's.

    A page that prints ``torch.__version__`` shows the pin's; on another release
    it prints that release's, which is no difference in behaviour.
    """
    import torch  # the pinned torch: this process runs the suite's own environment

    return stdout.replace(full_version, torch.__version__)


def block_entry(run, environment: Environment, full_version: str) -> dict:
    entry: dict = {"line": run.block.line if run.block.line is not None else run.block.cell}
    if run.traceback:
        last = [line for line in run.traceback.strip().splitlines() if line.strip()]
        entry["error"] = _clean(last[-1] if last else run.traceback, environment)
    printed = as_pinned(run.shown, full_version)
    if printed == run.block.shown:
        entry["stdout_hash"] = digest(printed)
    else:
        entry["stdout"] = _clean(printed, environment)
    if run.stderr:
        entry["stderr"] = _clean(run.stderr, environment)
    return entry


def page_entry(blocks: list[Block], runs: list, environment: Environment, full_version: str) -> dict:
    entry: dict = {"code": page_code_hash(blocks)}
    died = next((run.traceback for run in runs if run.traceback and run.traceback.startswith("the fresh interpreter")),
                None)
    if died:
        entry["not_run"] = died.replace("the fresh interpreter", "the page's interpreter")
        entry["retry"] = True  # a crash or a time-out may pass on another machine: run again next time
        return entry
    entry["blocks"] = [block_entry(run, environment, full_version) for run in runs]
    raised = next((run for run in runs if run.traceback), None)
    for block in blocks[len(runs):]:
        entry["blocks"].append({"line": block.line if block.line is not None else block.cell,
                                "not_run": f"block at line {raised.block.line} raised before it" if raised
                                else "not reached"})
    return entry


# ------------------------------------------------------------------ one release, every release
def run_release(version: str, pages: dict[str, list[Block]], out: Path, venvs: Path, index_url: str | None = None,
                dry_run: bool = False, force: bool = False, keep_venv: bool = False) -> Path | None:
    """Run the release's stale pages (with ``force``, every page given); write ``out/VERSION.json``, return it.

    With nothing stale, the file holds no page (merging it changes nothing); a
    dry run says what it would install and run, and writes nothing.
    """
    names = list(pages) if force else stale(version, pages)
    result: dict = {"requested": version, "pages": {}}
    print(f"torch {version}: {len(names)} page(s) to run", flush=True)
    if not names:
        return None if dry_run else save(result, out)
    environment = Environment(version, venvs / f"torch-{version}", dry_run, index_url, keep=keep_venv)
    try:
        environment.create(tensorflow=any(needs_tensorflow(pages[name]) for name in names))
        if dry_run:
            for name in names:
                print(f"  would run docs/en/{name}")
            return None
        result.update({"torch": environment.full_version(), "python": platform.python_version(),
                       "numpy": environment.run_python("import numpy; print(numpy.__version__)"),
                       "made": datetime.date.today().isoformat()})
        runnable = [name for name in names if not (environment.tensorflow and needs_tensorflow(pages[name]))]
        for name in set(names) - set(runnable):
            result["pages"][name] = {"code": page_code_hash(pages[name]), "not_run": environment.tensorflow}
        jobs = {name: pages[name] for name in runnable}
        runs = Replay(jobs, python=environment.python).results(timeout=PAGE_TIMEOUT) if jobs else {}
        for name, page_runs in runs.items():
            result["pages"][name] = page_entry(pages[name], page_runs, environment, result["torch"])
        written = save(result, out)
    finally:
        environment.remove()
    same = sum(all("stdout_hash" in b and "stderr" not in b for b in result["pages"][n].get("blocks", [{}]))
               for n in names)
    print(f"  {result['torch']}: {same} of {len(names)} page(s) unchanged; written to {written}", flush=True)
    return written


def refresh(versions: list[str], pages: dict[str, list[Block]], out: Path, venvs: Path, index_url: str | None = None,
            dry_run: bool = False, force: bool = False) -> None:
    """``run_release`` for each release with stale pages, one environment at a time, each result merged at once."""
    work = [(version, list(pages) if force else stale(version, pages)) for version in versions]
    work = [(version, names) for version, names in work if names]
    print(f"{len(work)} of {len(versions)} release(s) have stale pages; "
          f"{sum(len(names) for _, names in work)} page runs in all")
    started = time.monotonic()
    for number, (version, names) in enumerate(work, start=1):
        elapsed = time.monotonic() - started
        left = "" if number == 1 else f", about {elapsed / (number - 1) * (len(work) - number + 1) / 60:.0f} min left"
        print(f"[{number}/{len(work)}]{left}", flush=True)
        written = run_release(version, {name: pages[name] for name in names}, out, venvs, index_url, dry_run,
                              force=True)
        if written:
            print("\n".join(f"  {line}" for line in merge([written])))
