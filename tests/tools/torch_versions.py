"""The torch version matrix: every page's code run on one release of every minor version, stored as data.

    python -m tests.tools torch_versions refresh                  # every release, only what is stale
    python -m tests.tools torch_versions refresh --versions 2.4.1 --pages docs/en/retain-graph.md
    python -m tests.tools torch_versions refresh --dry-run        # what it would install and run
    python -m tests.tools torch_versions status                   # the matrix, and what is stale
    python -m tests.tools torch_versions discover [--write]       # releases on PyPI the matrix lacks

Not part of the test suite, and never run by CI's test job: each release is a
multi-GB download (PyPI publishes recent torch as CUDA builds only; they run
on a CPU). The releases are listed in docs/data/torch-versions/releases.yml.
For each one, ``refresh`` makes one virtual environment (deleted before the
next, so disk use stays at one build), installs that torch with a numpy it
supports (before 2.3: numpy<2), the page parser's packages and, if it can be
installed beside them, the TensorFlow the "From TensorFlow" page uses; then
runs every English page and notebook whose data is stale in fresh
interpreters (``tests.pagerun.fresh``, the engine of the portability pass)
and writes ``docs/data/torch-versions/VERSION.json``. It is resumable: a
page whose stored data matches its code is not run again, and each release
is written as soon as it is done. The pinned release runs in this
interpreter, without a download. sitepages.torch_versions explains what is
stored and how the site shows it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sitepages import ROOT, Block, parse, sources
from sitepages.data import load as load_data
from sitepages.pins import pinned, requirements
from sitepages.torch_versions import DATA, digest, page_code_hash, version_key
from tests.pagerun.fresh import Replay

RELEASES = DATA / "releases.yml"
# What the child interpreters need besides torch: the page model's packages (tests.pagerun.fresh
# reads blocks with sitepages, which reads mkdocs.yml with sitepages.data).
PARSER_PACKAGES = ("markdown", "pymdown-extensions", "nbformat", "pyyaml", "jsonschema")
PAGE_TIMEOUT = 3600  # seconds for all the pages of one release (each page is stopped after 180 s)


def planned_releases() -> list[str]:
    listed = load_data(RELEASES, DATA / "releases.schema.json").value["releases"]
    return sorted(listed, key=version_key)


def numpy_for(version: str) -> str:
    """torch releases before 2.3 were built against numpy 1.x and fail to load numpy 2."""
    return "numpy<2" if version_key(version) < (2, 3) else requirements()["numpy"]


def needs_tensorflow(blocks: list[Block]) -> bool:
    return any(re.search(r"^\s*import tensorflow\b", block.code, re.M) for block in blocks)


def english_sources(chosen: list[Path] | None) -> dict[str, list[Block]]:
    """docs/en page or notebook (relative to docs/en) -> its executed blocks."""
    paths = chosen or sources("en")
    found = {}
    for path in paths:
        relative = Path(path).resolve().relative_to(ROOT)
        if relative.parts[:2] != ("docs", "en"):
            raise SystemExit(f"{path}: not an English page (the Chinese ones run the same code)")
        blocks = [block for block in parse(relative) if block.executed]
        if blocks:
            found[relative.relative_to("docs/en").as_posix()] = blocks
    return found


def load(version: str) -> dict:
    path = DATA / f"{version}.json"
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    return {"requested": version, "pages": {}}


def save(data: dict) -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    data["pages"] = dict(sorted(data["pages"].items()))
    (DATA / f"{data['requested']}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                                                    encoding="utf-8")


def is_current(stored: dict | None, blocks: list[Block]) -> bool:
    if stored is None or stored.get("code") != page_code_hash(blocks):
        return False
    if "not_run" in stored and not stored.get("retry"):
        return True
    entries = stored.get("blocks", [])
    # A block stored as the hash of what the page showed then is stale once the page shows something else.
    return len(entries) == len(blocks) and all(
        "stdout_hash" not in entry or entry["stdout_hash"] == digest(block.shown)
        for entry, block in zip(entries, blocks, strict=True))


def stale(version: str, pages: dict[str, list[Block]]) -> list[str]:
    stored = load(version)["pages"]
    return [name for name, blocks in pages.items() if not is_current(stored.get(name), blocks)]


# ------------------------------------------------------------------ one release's environment
class Environment:
    """A virtual environment with one torch release, or this interpreter for the pinned one."""

    def __init__(self, version: str, folder: Path, dry_run: bool = False, index_url: str | None = None) -> None:
        self.version, self.folder, self.dry_run, self.index_url = version, folder, dry_run, index_url
        self.python = sys.executable if self.is_pinned else str(folder / "bin" / "python")
        self.tensorflow = "" if self.is_pinned else "not installed yet"

    @property
    def is_pinned(self) -> bool:
        return self.version == pinned("torch").split("+")[0]

    def _pip(self, *arguments: str) -> subprocess.CompletedProcess:
        command = [self.python, "-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check", "-q",
                   *arguments]
        if self.index_url:  # e.g. PyTorch's CPU wheels, with PyPI for everything else
            command += ["--index-url", self.index_url, "--extra-index-url", "https://pypi.org/simple"]
        if self.dry_run:
            print("  would run:", " ".join(command[2:]))
            return subprocess.CompletedProcess(command, 0, "", "")
        # PIP_CONFIG_FILE=/dev/null: a machine-wide constraint file or index (as on the project's own
        # machines, which cap torch for their local wheels) must not choose the release.
        variables = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
        return subprocess.run(command, env=variables, capture_output=True, text=True)

    def create(self) -> None:
        if self.is_pinned:
            return
        if not self.dry_run:
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(self.folder)], check=True)
        numpy = numpy_for(self.version)
        parser = [requirements().get(name, name) for name in PARSER_PACKAGES]
        installed = self._pip(f"torch=={self.version}", numpy, *parser)
        if installed.returncode != 0:
            raise RuntimeError(f"pip could not install torch {self.version}:\n{installed.stderr[-2000:]}")
        # TensorFlow beside this torch and numpy, or a reason why not (pip's own words).
        constraint = Path(tempfile.mkstemp(suffix=".txt")[1])
        numpy_now = self.run_python("import numpy; print(numpy.__version__)") if not self.dry_run else "X"
        constraint.write_text(f"numpy=={numpy_now}\ntorch=={self.version}\n", encoding="utf-8")
        tensorflow = self._pip(requirements()["tensorflow-cpu"], "-c", str(constraint))
        constraint.unlink()
        self.tensorflow = "" if tensorflow.returncode == 0 else (
            f"{requirements()['tensorflow-cpu']} cannot be installed beside torch {self.version} and numpy "
            f"{numpy_now}: " + _pip_reason(tensorflow.stderr))

    def run_python(self, code: str) -> str:
        return subprocess.run([self.python, "-c", code], check=True, capture_output=True, text=True).stdout.strip()

    def full_version(self) -> str:
        return self.run_python("import torch; print(torch.__version__)")

    def remove(self) -> None:
        if not self.is_pinned and not self.dry_run:
            shutil.rmtree(self.folder, ignore_errors=True)


def _pip_reason(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    wanted = [line for line in lines if "requires" in line or "conflict" in line.lower() or line.startswith("ERROR")]
    return " ".join((wanted or lines)[:3])[:400]


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


# ------------------------------------------------------------------ the commands
def refresh(versions: list[str], pages: dict[str, list[Block]], dry_run: bool, venvs: Path,
            index_url: str | None = None, force: bool = False) -> None:
    work = [(version, list(pages) if force else stale(version, pages)) for version in versions]
    work = [(version, names) for version, names in work if names]
    print(f"{len(work)} of {len(versions)} release(s) have stale pages; "
          f"{sum(len(names) for _, names in work)} page runs in all")
    started = time.monotonic()
    for number, (version, names) in enumerate(work, start=1):
        elapsed = time.monotonic() - started
        left = "" if number == 1 else f", about {elapsed / (number - 1) * (len(work) - number + 1) / 60:.0f} min left"
        print(f"[{number}/{len(work)}] torch {version}: {len(names)} page(s){left}", flush=True)
        environment = Environment(version, venvs / f"torch-{version}", dry_run, index_url)
        try:
            environment.create()
            if dry_run:
                continue
            data = load(version)
            data.update({"torch": environment.full_version(), "python": platform.python_version(),
                         "numpy": environment.run_python("import numpy; print(numpy.__version__)"),
                         "made": datetime.date.today().isoformat()})
            runnable = [name for name in names if not (environment.tensorflow and needs_tensorflow(pages[name]))]
            for name in set(names) - set(runnable):
                data["pages"][name] = {"code": page_code_hash(pages[name]), "not_run": environment.tensorflow}
            jobs = {name: pages[name] for name in runnable}
            runs = Replay(jobs, python=environment.python).results(timeout=PAGE_TIMEOUT) if jobs else {}
            for name, page_runs in runs.items():
                data["pages"][name] = page_entry(pages[name], page_runs, environment, data["torch"])
            save(data)
            same = sum(all("stdout_hash" in b and "stderr" not in b for b in data["pages"][n].get("blocks", [{}]))
                       for n in names)
            print(f"  {data['torch']}: {same} of {len(names)} page(s) unchanged; "
                  f"{time.monotonic() - started - elapsed:.0f} s", flush=True)
        finally:
            environment.remove()


def status(pages: dict[str, list[Block]]) -> None:
    for version in planned_releases():
        data = load(version)
        names = stale(version, pages)
        unchanged = [name for name, stored in data["pages"].items()
                     if name in pages and name not in names and "blocks" in stored
                     and all("stdout_hash" in b and "stderr" not in b and "error" not in b for b in stored["blocks"])]
        print(f"torch {version:8} {data.get('torch', '(no data)'):16} unchanged {len(unchanged):3} of {len(pages)}"
              f"{f', stale {len(names)}' if names else ''}")


def discover(write: bool) -> None:
    """The newest patch of every minor release on PyPI that releases.yml lacks; with ``write``, added there
    (a newer patch replaces the older one, whose data then goes: it ran other code)."""
    result = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "torch"], capture_output=True, text=True,
                            env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
    match = re.search(r"Available versions: (.*)", result.stdout)
    if not match:
        raise SystemExit(f"pip index versions torch failed:\n{result.stdout}{result.stderr}")
    available = [v.strip() for v in match.group(1).split(",") if re.fullmatch(r"\d+\.\d+\.\d+", v.strip())]
    newest: dict[tuple[int, ...], str] = {}
    for version in available:
        key = version_key(version)[:2]
        if key >= (2, 0) and (key not in newest or version_key(version) > version_key(newest[key])):
            newest[key] = version
    listed = {version_key(v)[:2]: v for v in planned_releases()}
    new = {key: version for key, version in newest.items() if listed.get(key) != version}
    for key, version in sorted(new.items()):
        print(f"{version}: {'a newer patch than ' + listed[key] if key in listed else 'not in the matrix'}")
    if not new:
        print("releases.yml lists the newest patch of every minor release on PyPI")
    if write and new:
        for key in new:
            if key in listed:
                (DATA / f"{listed[key]}.json").unlink(missing_ok=True)
        releases = sorted({**listed, **new}.values(), key=version_key)
        text = RELEASES.read_text(encoding="utf-8")
        header = text[:text.index("releases:")]
        RELEASES.write_text(header + "releases:\n" + "".join(f"  - {v}\n" for v in releases), encoding="utf-8")
        print(f"wrote {RELEASES.relative_to(ROOT)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("refresh", help="run what is stale and write the data")
    run.add_argument("--versions", nargs="+", help="releases to run (default: every one in releases.yml)")
    run.add_argument("--pages", nargs="+", type=Path, help="English pages or notebooks (default: all)")
    run.add_argument("--dry-run", action="store_true", help="say what would be installed and run, do nothing")
    run.add_argument("--force", action="store_true", help="run the chosen pages even where their data is current")
    run.add_argument("--venvs", type=Path, default=Path(tempfile.gettempdir()) / "torch-version-matrix",
                     help="where the virtual environment of the release being run is made")
    run.add_argument("--index-url", help="where to install torch from, e.g. https://download.pytorch.org/whl/cpu "
                                         "(default: PyPI, whose recent releases are CUDA builds)")
    commands.add_parser("status", help="the matrix in numbers, and what is stale")
    find = commands.add_parser("discover", help="releases on PyPI that the matrix lacks")
    find.add_argument("--write", action="store_true", help="add them to releases.yml")
    args = parser.parse_args()
    if args.command == "status":
        status(english_sources(None))
    elif args.command == "discover":
        discover(args.write)
    else:
        versions = args.versions or planned_releases()
        unknown = [v for v in versions if v not in planned_releases()]
        if unknown:
            raise SystemExit(f"{unknown}: not in {RELEASES.relative_to(ROOT)}; add them there first")
        refresh(versions, english_sources(args.pages), args.dry_run, args.venvs, args.index_url, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
