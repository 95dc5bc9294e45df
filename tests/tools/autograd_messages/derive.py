"""Compare the data file with a torch build: what is new in its sources, gone from it, or moved."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sitepages import DOCS
from sitepages.data import Data, DataError, load
from sitepages.messages import message_regex

from .binary import candidates, compiled_text, literal_misses
from .scan import Found, normal, scan

DATA = DOCS / "data" / "autograd-messages.yml"
SCHEMA = DOCS / "data" / "autograd-messages.schema.json"
FAMILIES = ("engine", "custom-function", "hooks", "inplace-views", "grad-modes", "anomaly", "functorch",
            "checkpoint", "amp", "optim", "module-tensor", "ddp", "compile")
STATUSES = ("pending", "reproduced", "gpu", "multi-machine", "unreachable")
NEEDS = {"gpu": "reason", "multi-machine": "reason", "unreachable": "reason", "reproduced": "entry"}
# Found in the sources, never listed: assertions of torch's own invariants.
INTERNAL_TYPES = ("AssertionError",)


class MessagesError(DataError):
    """The data file breaks its schema or a rule between its entries; the message names the file and line."""


def load_messages(path: Path = DATA) -> Data:
    """The data file, validated: its schema, then ids unique and each status with the field it requires."""
    data = load(path, SCHEMA, MessagesError)
    first: dict[str, int] = {}
    for index, message in enumerate(data.value["messages"]):
        where = ("messages", index)
        if message["id"] in first:
            raise data.error((*where, "id"), f"message id {message['id']!r} is given twice (first as message "
                                             f"{first[message['id']] + 1})")
        first[message["id"]] = index
        needed = NEEDS.get(message["status"])
        if needed and needed not in message:
            raise data.error(where, f"message {message['id']!r}: status {message['status']} requires "
                                    f"'{needed}'" + (" (why)" if needed == "reason" else " (errors/ID.md)"))
        for extra in ("reason", "entry"):
            # A message that needs a GPU or several machines may still have an entry (its block declared not run).
            allowed = extra == "entry" and message["status"] in ("gpu", "multi-machine")
            if extra in message and NEEDS.get(message["status"]) != extra and not allowed:
                raise data.error((*where, extra), f"message {message['id']!r}: '{extra}' is only for status "
                                 + " or ".join(s for s, n in NEEDS.items() if n == extra)
                                 + f", not {message['status']}")
        internal = message["type"] in INTERNAL_TYPES
        if internal != ("reachable" in message):
            raise data.error(where, f"message {message['id']!r}: " + (
                f"an {message['type']} is internal unless a user reaches it: say how in 'reachable'" if internal
                else f"'reachable' is only for {' or '.join(INTERNAL_TYPES)}, not {message['type']}"))
        if normal(message["text"]) != message["text"]:
            raise data.error((*where, "text"), f"message {message['id']!r}: text has runs of spaces, spaces "
                                               "at an end or adjacent <...>; write it as torch prints it, "
                                               "whitespace collapsed")
    return data


def sources(message: dict) -> list[str]:
    return message["source"] if isinstance(message["source"], list) else [message["source"]]


def is_python(source: str) -> bool:
    return re.search(r"\.py:\d+$", source) is not None


@dataclass
class Report:
    torch: str
    where: Path
    found: list[Found]
    new: list[Found] = field(default_factory=list)
    gone: list[tuple[dict, str]] = field(default_factory=list)  # (message, why)
    moved: list[tuple[dict, str, str]] = field(default_factory=list)  # (message, listed, found)
    missing_modules: list[str] = field(default_factory=list)
    literals: int = 0  # the literals in the build's libraries
    candidates: list[str] = field(default_factory=list)  # literals that read like an autograd message, not listed

    @property
    def disagrees(self) -> bool:
        return bool(self.new or self.gone or self.moved or self.missing_modules)


def torch_of(python: str) -> tuple[str, Path]:
    """The version and package folder of the torch that ``python`` imports (found without importing it)."""
    code = ("import importlib.util, json, pathlib; spec = importlib.util.find_spec('torch'); "
            "print(json.dumps(None if spec is None else spec.submodule_search_locations[0]))")
    try:
        run = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120)
    except OSError as problem:
        raise SystemExit(f"--torch {python}: cannot run it: {problem}") from None
    if run.returncode or json.loads(run.stdout or "null") is None:
        raise SystemExit(f"--torch {python}: that interpreter has no torch ({run.stderr.strip() or 'not found'})")
    folder = Path(json.loads(run.stdout))
    own = Path(__import__("importlib.util").util.find_spec("torch").submodule_search_locations[0])
    if Path(python).resolve() != Path(sys.executable).resolve() and folder.resolve() == own.resolve():
        # A venv whose pyvenv.cfg or site-packages was deleted runs as its base interpreter, with its torch.
        raise SystemExit(f"--torch {python}: it imports this interpreter's own torch ({folder}); is its "
                         "virtual environment complete?")
    version = re.search(r"""__version__\s*(?::\s*str\s*)?=\s*['"]([^'"]+)""",
                        (folder / "version.py").read_text(encoding="utf-8"))
    return (version[1] if version else "unknown"), folder


def derive(data: Data, python: str = sys.executable) -> Report:
    version, folder = torch_of(python)
    found, missing_modules = scan(folder.parent)
    listed = data.value["messages"]
    patterns = {id(message): _pattern(message["text"]) for message in listed}  # built once, used for each item
    report = Report(version, folder, found, missing_modules=missing_modules)
    # Python: each listed message must be raised at each of its sources, with its text (a listed text may end
    # early, and matches a printed one as the troubleshooting pages do: <...> any text, digits any digits).
    by_place = {(item.file, item.line): item for item in found}
    matched: set[int] = set()
    for message in listed:
        pattern = patterns[id(message)]
        for source in filter(is_python, sources(message)):
            file, line = source.rsplit(":", 1)
            here = by_place.get((file, int(line)))
            if here and here.type == message["type"] and pattern.match(here.text):
                matched.add(id(here))
                continue
            elsewhere = [item for item in found if item.file == file and item.type == message["type"]
                         and pattern.match(item.text) and id(item) not in matched]
            if elsewhere:
                matched.add(id(elsewhere[0]))
                report.moved.append((message, source, elsewhere[0].source))
            else:
                report.gone.append((message, f"{source}: no {message['type']} with this text there"))
    report.new = [item for item in found if id(item) not in matched and item.type not in INTERNAL_TYPES
                  and not any(m["type"] == item.type and patterns[id(m)].match(item.text)
                              and any(s.split(":")[0] == item.file for s in sources(m) if is_python(s))
                              for m in listed)]
    # C++: the literal parts of the text must be in the build's libraries or headers.
    text = compiled_text(folder)
    for message in listed:
        if any(is_python(source) for source in sources(message)):
            continue
        misses = literal_misses(message["text"], text)
        if misses:
            report.gone.append((message, "not in the build's libraries: " + "; ".join(
                f"{miss[:80]!r}" for miss in misses)))
    # For review, not a disagreement: literals of the libraries that read like an autograd message, not listed.
    report.literals, report.candidates = candidates(
        folder, [m["text"] for m in listed] + [m["text"] for m in data.value.get("outside", [])]
        + [item.text for item in found])
    return report


def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(message_regex(text))


def counts(messages: list[dict], internal: Counter | None = None) -> str:
    """The counts table: per family, found (listed), user-reachable, and each status."""
    header = ["family", "found", "user-reachable", *STATUSES] + (["internal, not listed"] if internal else [])
    rows = []
    for family in (*FAMILIES, "total"):
        chosen = [m for m in messages if family in ("total", m["family"])]
        tally = Counter(m["status"] for m in chosen)
        row = [family, len(chosen), len(chosen) - tally["unreachable"], *(tally[s] for s in STATUSES)]
        if internal:
            row.append(sum(internal.values()) if family == "total" else internal[family])
        rows.append([str(cell) for cell in row])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join("  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in
                               enumerate(zip(row, widths, strict=True))) for row in [header, *rows])
