"""What each page's code does on other torch releases: the version matrix, read from docs/data/torch-versions/.

``python -m tests.tools torch_versions refresh`` runs every English page and
notebook, with the suite's engine in fresh interpreters, on one torch release
per minor version, and writes one file per release, ``VERSION.json``: the full
version string it ran, and per page the hash of the code it ran
(``page_code_hash``) and per executed block what it did. A block that printed
what the page shows is stored as the hash of that output; anything else is
stored as text: what it printed instead, what it wrote to stderr, the error it
raised, or why it did not run.

Everything shown on the site is derived here, at build time, from that data
and the pages as they are now: a page whose code changed since its data was
made, or a block whose shown output changed, is "not yet checked" on that
release, and nothing is claimed for it. The Chinese pages run their English
twins' code (tests/test_translation_parity.py) and are shown the same data.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from . import Block, parse
from .data import load
from .layout import DEFAULT_LANGUAGE, DOCS, LANGUAGES, ROOT, twin
from .pins import pinned
from .twins import code_key

DATA = DOCS / "data" / "torch-versions"
# Each file of DATA is described by a schema beside it: RELEASE.json by release.schema.json (checked by
# tests/test_torch_versions.py, not by the build: it takes a second), NAME.yml by NAME.schema.json.
RELEASE_SCHEMA = DATA / "release.schema.json"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def page_code_hash(blocks: list[Block]) -> str:
    """What the page's executed blocks run, comments aside, as one hash (twins share it)."""
    return digest("\x00".join(code_key(blocks)))


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:3])


def minor(version: str) -> str:
    return ".".join(version.split("+")[0].split(".")[:2])


@dataclass(frozen=True)
class LogLine:
    """A line that torch's libraries log while a page's code runs, which is no behaviour of the code.

    ``template`` is the line with ``#`` for each number in it. A line of a block's output or stderr that is
    the template is removed; so are up to ``MAX_CUT`` consecutive lines that hold k copies of it cut into
    each other (processes of a process group print it at once, character by character:
    "[Gloo] Rank [Gloo] Rank 1 is connected ... : 1" then "0 is connected ... : 1"), recognised by their
    characters, digits and spaces aside, being exactly those of k copies.
    """

    name: str
    template: str
    why: str

    MAX_CUT = 4

    @property
    def pattern(self) -> re.Pattern:
        return re.compile("".join(r"\d*" if part == "#" else re.escape(part)
                                  for part in re.split("(#)", self.template)))

    @property
    def characters(self) -> Counter:
        return Counter(re.sub(r"[\d\s#]", "", self.template))

    def remove(self, text: str) -> str:
        lines = text.splitlines(keepends=True)
        kept, i = [], 0
        while i < len(lines):
            if self.pattern.fullmatch(lines[i].rstrip("\n")):
                i += 1
                continue
            length = next((n for n in range(2, self.MAX_CUT + 1) if i + n <= len(lines)
                           and self._copies("".join(lines[i:i + n]))), 0)
            if length:
                i += length
                continue
            kept.append(lines[i])
            i += 1
        return "".join(kept)

    def _copies(self, chunk: str) -> bool:
        found = Counter(re.sub(r"[\d\s]", "", chunk))
        copies = sum(found.values()) // max(1, sum(self.characters.values()))
        return copies > 0 and found == Counter({c: n * copies for c, n in self.characters.items()})


# The log lines left out of what a block printed and wrote to stderr before it is compared with what the page
# shows: a block that differs only by them is the same. tests/test_version_differences.py holds an example each.
LOG_LINES = (
    LogLine("gloo-connected", "[Gloo] Rank # is connected to # peer ranks. Expected number of connected peer ranks "
            "is : #", "Gloo, torch.distributed's CPU backend, prints it from every process of a process group "
            "(to stdout, since torch 2.8) when the group connects"),
    LogLine("spawn-terminating", "W torch/multiprocessing/spawn.py:#] Terminating process # via signal SIGTERM",
            "torch.multiprocessing logs it when it stops the other processes because one raised; the error the "
            "block raised is what the note shows"),
    LogLine("dynamo-event-logger", "W torch/_dynamo/utils.py:#] [!#] ChromiumEventLogger: Start event not in stack, "
            "ignoring", "TorchDynamo's internal event logger on torch 2.9: its own bookkeeping"),
)


def without_log_lines(text: str, log_lines: tuple[LogLine, ...] = LOG_LINES) -> str:
    """The text without the lines of ``log_lines``."""
    for log_line in log_lines:
        text = log_line.remove(text)
    return text


@dataclass(frozen=True)
class BlockResult:
    """What one executed block did on one release (log lines of ``LOG_LINES`` left out)."""

    state: str  # "same", "differs", "raises", "not run", "unknown" (its shown output changed since)
    text: str = ""  # what it printed (differs), the error (raises) or why (not run)
    stderr: str = ""  # what it wrote to stderr, which the page never shows
    printed: str = ""  # raises: what it printed before it raised


@dataclass(frozen=True)
class PageResult:
    version: str  # the release requested, e.g. 2.4.1
    full_version: str  # what torch.__version__ said, e.g. 2.4.1+cu121
    state: str  # "same" (every block), "differs", "not run", "not checked" (no data for this code)
    blocks: tuple[BlockResult, ...] = ()
    reason: str = ""  # not run: why

    @property
    def differing(self) -> list[int]:
        """Indexes (among the executed blocks) of the blocks that do not do what the page shows."""
        return [i for i, block in enumerate(self.blocks) if block.state != "same"]

    @property
    def runs(self) -> bool:
        """Whether every block ran without an error (what it printed may differ)."""
        return self.state in ("same", "differs") and all(block.state in ("same", "differs") for block in self.blocks)


def release_files(data: Path = DATA) -> list[Path]:
    """The stored runs, one VERSION.json per release (the schemas beside them are not runs)."""
    return sorted(path for path in data.glob("*.json") if not path.name.endswith(".schema.json"))


@functools.cache
def releases(data: Path = DATA) -> dict[str, dict]:
    """Release -> its stored data, oldest first."""
    found = {}
    for path in release_files(data):
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("requested") != path.stem:
            raise ValueError(f"{path.relative_to(ROOT)}: 'requested' is {stored.get('requested')!r}, "
                             f"expected {path.stem!r} (the file's name)")
        found[path.stem] = stored
    return dict(sorted(found.items(), key=lambda item: version_key(item[0])))


def _block_result(stored: dict | None, block: Block) -> BlockResult:
    if stored is None:
        return BlockResult("unknown")
    if "not_run" in stored:
        return BlockResult("not run", stored["not_run"])
    stderr = without_log_lines(stored.get("stderr", ""))
    if "error" in stored:
        return BlockResult("raises", stored["error"], stderr, without_log_lines(stored.get("stdout", "")))
    if "stdout" in stored:
        printed = without_log_lines(stored["stdout"])
    elif stored.get("stdout_hash") == digest(block.shown):
        printed = block.shown
    else:  # it printed what the page showed then, and the page shows something else now
        return BlockResult("unknown")
    if printed == block.shown and not stderr:
        return BlockResult("same")
    return BlockResult("differs", printed, stderr)


def _code(english: Path) -> tuple[list[Block], str]:
    """The page's executed blocks and their code hash, read once per version of the file (a build, or a
    rebuild of `mkdocs serve` after an edit, asks for them for every page and release)."""
    path = ROOT / english
    return _code_of(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=512)
def _code_of(path: Path, modified: int) -> tuple[list[Block], str]:
    blocks = [block for block in parse(path) if block.executed]
    return blocks, page_code_hash(blocks)


def page_result(source: Path, version: str, data: Path = DATA) -> PageResult:
    """What the page's code (of either language) does on that release, as far as the data knows."""
    english = twin(source, DEFAULT_LANGUAGE)
    blocks, code = _code(english)
    stored_release = releases(data)[version]
    full = stored_release.get("torch", version)
    stored = stored_release["pages"].get(english.relative_to(Path("docs", DEFAULT_LANGUAGE)).as_posix())
    if stored is None or stored["code"] != code:
        return PageResult(version, full, "not checked")
    if "not_run" in stored:
        return PageResult(version, full, "not run", reason=stored["not_run"])
    results = tuple(_block_result(stored["blocks"][i] if i < len(stored["blocks"]) else None, block)
                    for i, block in enumerate(blocks))
    if any(result.state == "unknown" for result in results):
        return PageResult(version, full, "not checked", results)
    return PageResult(version, full, "same" if all(r.state == "same" for r in results) else "differs", results)


def page_results(source: Path, data: Path = DATA) -> list[PageResult]:
    """What the page's code does on every release of the matrix, oldest first."""
    english = twin(source, DEFAULT_LANGUAGE)
    return list(_page_results(english, (ROOT / english).stat().st_mtime_ns, data))


@functools.lru_cache(maxsize=512)
def _page_results(english: Path, modified: int, data: Path) -> tuple[PageResult, ...]:
    """Computed once per version of the file: a build asks for a page's results from several hooks, in
    both languages (twins share their code and data)."""
    return tuple(page_result(english, version, data) for version in releases(data))


def around_pin(results: list[PageResult], holds) -> tuple[str, str] | None:
    """The widest run of consecutive releases, around the pinned one, for which ``holds(result)``."""
    versions = [result.version for result in results]
    pin = pinned("torch").split("+")[0]
    if pin not in versions:
        return None
    start = end = versions.index(pin)
    if not holds(results[start]):
        return None
    while start > 0 and holds(results[start - 1]):
        start -= 1
    while end < len(results) - 1 and holds(results[end + 1]):
        end += 1
    return minor(versions[start]), minor(versions[end])


def unchanged_range(results: list[PageResult]) -> tuple[str, str] | None:
    """The widest run of consecutive releases, around the pinned one, on which every block prints what the
    page shows."""
    return around_pin(results, lambda result: result.state == "same")


def running_range(results: list[PageResult]) -> tuple[str, str] | None:
    """The widest run of consecutive releases, around the pinned one, on which no block raises (their
    output may differ)."""
    return around_pin(results, lambda result: result.runs)


def version_span(versions: list[str]) -> str:
    """2.0, 2.1, 2.2, 2.4 -> "2.0–2.2, 2.4" (consecutive releases of the matrix joined)."""
    order = [minor(v) for v in releases()]
    runs: list[list[str]] = []
    for version in sorted({minor(v) for v in versions}, key=order.index):
        if runs and order.index(version) == order.index(runs[-1][-1]) + 1:
            runs[-1].append(version)
        else:
            runs.append([version])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)


@dataclass(frozen=True)
class Change:
    """A behaviour change (docs/data/torch-versions/changes.yml): the block of ``page`` that holds ``code``
    behaves differently on the release before ``since`` and on ``since``."""

    id: str
    since: str
    page: str  # relative to docs/en
    code: str  # a piece of code only that block holds
    text: dict[str, str]
    entry: str | None = None  # the error index's page of a message that changed wording

    def block_index(self, blocks: list[Block]) -> int | None:
        """The index of the one executed block holding ``code``; None unless exactly one does."""
        holding = [index for index, block in enumerate(blocks) if self.code in block.code]
        return holding[0] if len(holding) == 1 else None


def changes(data: Path = DATA) -> list[Change]:
    """The changes of ``changes.yml``, checked against ``changes.schema.json`` beside it."""
    path = data / "changes.yml"
    if not path.is_file():
        return []
    entries = load(path, DATA / "changes.schema.json").value["changes"]
    return [Change(entry["id"], entry["since"], entry["page"], entry["code"],
                   {language: " ".join(entry[language].split()) for language in LANGUAGES},
                   entry.get("entry")) for entry in entries]


def backed(change: Change, data: Path = DATA) -> bool:
    """Whether the current data shows the change: its block ran, on the release before ``since`` and on
    ``since``, with the page's current code, and did something different on the two."""
    source = Path("docs", DEFAULT_LANGUAGE) / change.page
    blocks, _ = _code(source)
    index = change.block_index(blocks)
    if index is None:
        return False
    order = list(releases(data))
    since = next((release for release in order if minor(release) == change.since), None)
    if since is None or order.index(since) == 0:
        return False
    before, after = (page_result(source, release, data) for release in (order[order.index(since) - 1], since))
    if not before.blocks or not after.blocks or "not checked" in (before.state, after.state):
        return False
    return before.blocks[index] != after.blocks[index]
