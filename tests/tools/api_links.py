"""List, check and write the map from PyTorch names on the pages to their reference pages (docs/data/api-links.yml).

    python -m tests.tools api_links list     # the inline-code names on the pages that look like PyTorch APIs
    python -m tests.tools api_links check    # every mapped object exists in torch and has the URL of its page
    python -m tests.tools api_links write    # fill in (or correct) each entry's url and receiver, from torch

The build links the first inline code of a page that names a mapped API
(docs/hooks/api_links.py) and asks nothing of the network; this tool is where
torch is asked. A writer adds ``NAME: {object: torch.X.Y}`` under ``names``
(NAME as the pages write it, without parentheses), runs ``write``, and
commits the file. The URL follows the layout of PyTorch's documentation at
``base``: a function, class or tensor method has its own page,
``generated/<object>.html``; a method of a class listed under
``members_on_class_page`` (``torch.nn.Module``) is an anchor of its class's
page; an object listed under ``topic_pages`` is an anchor of that page
(``checkpoint.html#torch.utils.checkpoint.checkpoint``). There is no
objects.inv to read offline: a new topic page is added by hand, after a look
at the reference. ``receiver: true`` (a method: linked in ``y.NAME()`` too)
is written for an object defined on a class.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from sitepages import DOCS, page_id, pages
from sitepages.api_links import _NAME
from sitepages.data import Data, load

MAP = DOCS / "data" / "api-links.yml"
SCHEMA = DOCS / "data" / "api-links.schema.json"
COMMAND = "python -m tests.tools api_links"
HEADER = f"""\
# yaml-language-server: $schema={SCHEMA.name}
# PyTorch names in the pages' inline code -> their page in PyTorch's reference
# (docs/hooks/api_links.py links the first one of each on a page). Written and
# checked by `{COMMAND} write|check|list` (tests/tools/api_links.py): add
# `NAME: {{object: torch.X}}` under names, run write. receiver: true links
# `x.NAME()` too; only_on: the only pages (docs/LANG/...) where a name that is
# ambiguous on its own is linked.
"""
# Where an inline-code name looks like a PyTorch API: it resolves in one of these.
NAMESPACES = ("torch", "torch.Tensor", "torch.nn.Module", "torch.autograd", "torch.autograd.graph",
              "torch.func", "torch.nn", "torch.nn.functional", "torch.utils.checkpoint", "torch.amp")
ALIASES = {"nn": "torch.nn", "F": "torch.nn.functional", "Tensor": "torch.Tensor", "np": None}


def resolve(dotted: str) -> Any:
    """The object a dotted name names in the installed torch; LookupError if none."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if not hasattr(found, part):
                raise LookupError(f"{dotted}: {'.'.join(parts[:cut])} has no attribute {part!r}")
            found = getattr(found, part)
        return found
    raise LookupError(f"{dotted}: no module {parts[0]!r}")


def owner(dotted: str) -> str | None:
    """The class that the object ``dotted`` is defined on (``torch.nn.Module`` for its methods), or None."""
    parent, _, _ = dotted.rpartition(".")
    try:
        return parent if parent and inspect.isclass(resolve(parent)) else None
    except LookupError:
        return None


def url_of(dotted: str, data: dict) -> str:
    """The page of ``dotted`` in PyTorch's documentation, relative to ``base``."""
    if dotted in data.get("topic_pages", {}):
        return f"{data['topic_pages'][dotted]}#{dotted}"
    cls = owner(dotted)
    if cls is not None and cls in data.get("members_on_class_page", []):
        return f"{url_of(cls, data).split('#')[0]}#{dotted}"
    return f"generated/{dotted}.html"


def problems(data: Data) -> list[str]:
    """What is wrong with the map: an object torch lacks, a URL or receiver that ``write`` would change."""
    found = []
    for name, entry in data.value["names"].items():
        try:
            resolve(entry["object"])
        except LookupError as problem:
            found.append(f"{data.where('names', name)}: {name}: the installed torch has no {problem}")
            continue
        expected = url_of(entry["object"], data.value)
        if entry.get("url") != expected:
            found.append(f"{data.where('names', name)}: {name}: url is {entry.get('url')!r}, the layout gives "
                         f"{expected!r} (run `{COMMAND} write`)")
        if entry.get("receiver", False) != (owner(entry["object"]) is not None):
            found.append(f"{data.where('names', name)}: {name}: receiver should be "
                         f"{owner(entry['object']) is not None} (run `{COMMAND} write`)")
    return found


def code_names(page: Path) -> list[str]:
    """The names of the inline code in a page's prose (not in headings or links), parentheses dropped."""
    names = []
    in_heading = False
    for token in MarkdownIt("commonmark").enable("table").parse(page.read_text(encoding="utf-8")):
        if token.type in ("heading_open", "heading_close"):
            in_heading = token.type == "heading_open"
        if token.type != "inline" or in_heading:
            continue
        in_link = False
        for child in token.children or ():
            in_link = {"link_open": True, "link_close": False}.get(child.type, in_link)
            match = _NAME.fullmatch(child.content.strip()) if child.type == "code_inline" and not in_link else None
            if match:
                names.append(match["name"])
    return names


def looks_like_torch(name: str) -> str | None:
    """The object a name written on a page would be in torch (its first part as an alias or a receiver)."""
    head, _, rest = name.partition(".")
    if head in ALIASES:
        if ALIASES[head] is None:
            return None
        name = f"{ALIASES[head]}.{rest}" if rest else ALIASES[head]
    candidates = [name] if name.startswith("torch.") else [f"{space}.{name}" for space in NAMESPACES]
    if not name.startswith("torch.") and "." in name:  # x.retain_grad: a method on a variable
        candidates += [f"{space}.{name.rsplit('.', 1)[1]}" for space in ("torch.Tensor", "torch.nn.Module")]
    for candidate in candidates:
        try:
            resolve(candidate)
        except LookupError:
            continue
        if not candidate.rsplit(".", 1)[-1].startswith("_"):
            return candidate
    return None


def write(data: Data) -> str:
    """The map's text with every url and receiver as torch and the layout give them."""
    lines = [HEADER.rstrip("\n"), f"base: {data.value['base']}"]
    for key in ("topic_pages",):
        lines.append(f"{key}:")
        lines += [f"  {name}: {page}" for name, page in sorted(data.value.get(key, {}).items())]
    lines.append("members_on_class_page: [" + ", ".join(data.value.get("members_on_class_page", [])) + "]")
    lines.append("names:")
    for name, entry in sorted(data.value["names"].items(), key=lambda item: item[0].casefold()):
        fields = {"object": entry["object"], "url": url_of(entry["object"], data.value)}
        if owner(entry["object"]) is not None:
            fields["receiver"] = "true"
        if entry.get("only_on"):
            fields["only_on"] = "[" + ", ".join(entry["only_on"]) + "]"
        lines.append(f"  {name}: {{" + ", ".join(f"{key}: {value}" for key, value in fields.items()) + "}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("list", "check", "write"))
    parser.add_argument("--map", type=Path, default=MAP, help="the map file (default: %(default)s)")
    arguments = parser.parse_args()
    data = load(arguments.map, SCHEMA)
    if arguments.action == "write":
        arguments.map.write_text(write(data), encoding="utf-8")
        data = load(arguments.map, SCHEMA)
    found = problems(data)
    if arguments.action == "list":
        mapped = data.value["names"]
        used: Counter[str] = Counter()
        where: dict[str, set[str]] = {}
        for page in pages():
            for name in code_names(page):
                used[name] += 1
                where.setdefault(name, set()).add(page_id(page))
        for name, count in sorted(used.items(), key=lambda item: (-item[1], item[0])):
            short = name.rsplit(".", 1)[-1]
            entry = mapped.get(name) or (mapped.get(short) if mapped.get(short, {}).get("receiver") else None)
            target = looks_like_torch(name)
            if entry is None and target is None:
                continue
            state = f"-> {entry['url']}" if entry else f"unmapped (torch has {target})"
            print(f"{count:4d}  {name:45s} {state}  [{len(where[name])} pages]")
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
